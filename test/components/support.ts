/**
 * Shared by the component tests: a realistic ComponentContext (a containerd pool `worker-a` on
 * Kubernetes 1.30.2, everything on), readers for rendered files, the golden rendering and shellcheck.
 */
import { spawnSync } from 'node:child_process';
import { key, type OscFile, type OscUnit, parseSemVer, stringifyYaml } from '../../api/index.js';
import type { ComponentContext, ComponentOutput } from '../../components/component.js';
import { expectGolden } from '../golden.js';

export const IMAGES = Object.freeze({
  hyperkube: 'europe-docker.pkg.dev/gardener-project/releases/hyperkube:v1.30.2',
  'pause-container': 'registry.k8s.io/pause:3.9',
  valitail: 'europe-docker.pkg.dev/gardener-project/releases/3rd/credativ/valitail:v2.2.14',
  'gardener-node-agent': 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.91.4',
});

export const CA_BUNDLE = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUB2Q=\n-----END CERTIFICATE-----\n';

export function componentContext(overrides: Partial<ComponentContext> = {}): ComponentContext {
  const kubernetesVersion = parseSemVer('1.30.2');
  return {
    key: key('worker-a', kubernetesVersion, 'containerd'),
    useGardenerNodeAgent: true,
    // upstream's test vectors are v1.91's: the shared ServiceAccount
    nodeAgentIdentity: 'serviceAccount',
    workerPoolName: 'worker-a',
    caBundle: CA_BUNDLE,
    clusterCaBundle: CA_BUNDLE,
    kubeletCaBundle: CA_BUNDLE,
    clusterDnsAddress: '100.64.0.10',
    clusterDomain: 'cluster.local',
    criName: 'containerd',
    images: IMAGES,
    nodeLabels: { 'worker.gardener.cloud/pool': 'worker-a' },
    kubeletConfigParameters: {},
    kubeletDataVolumeName: undefined,
    kubernetesVersion,
    sshPublicKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB3yf1Jv operator@example.com'],
    sshAccessEnabled: true,
    valitailEnabled: true,
    valiIngress: 'v-local--local.ingress.local.seed.example.com',
    apiServerUrl: 'https://api.local.local.external.example.com',
    sysctls: {},
    syncJitterPeriod: 300_000_000_000,
    preferIPv6: false,
    ...overrides,
  };
}

export function unitNamed(out: ComponentOutput, name: string): OscUnit {
  const unit = out.units.find((u) => u.name === name);
  if (!unit) throw new Error(`no unit ${name} in [${out.units.map((u) => u.name).join(', ')}]`);
  return unit;
}

export function fileAt(out: ComponentOutput, path: string): OscFile {
  const file = out.files.find((f) => f.path === path);
  if (!file) throw new Error(`no file ${path} in [${out.files.map((f) => f.path).join(', ')}]`);
  return file;
}

/** The text a node writes for an inline file, whatever its encoding. */
export function contentOf(file: OscFile): string {
  const inline = file.content.inline;
  if (!inline) throw new Error(`${file.path} has no inline content`);
  return inline.encoding === 'b64' ? Buffer.from(inline.data, 'base64').toString('utf8') : inline.data;
}

/** Every rendered script (inline content starting with a shebang), by path. */
export function scriptsOf(out: ComponentOutput): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const file of out.files) {
    if (!file.content.inline) continue;
    const text = contentOf(file);
    if (text.startsWith('#!')) scripts.set(file.path, text);
  }
  return scripts;
}

/**
 * test/golden/components/<name>.yaml: the output exactly as it goes into the OSC; scripts and
 * configs follow base64-decoded under `decoded`, so a review reads them, not base64.
 */
export function expectComponentGolden(name: string, out: ComponentOutput): void {
  const decoded: Record<string, string> = {};
  for (const file of out.files) {
    if (file.content.inline?.encoding === 'b64') decoded[file.path] = contentOf(file);
  }
  const rendered = stringifyYaml({ units: out.units, files: out.files });
  const readable = Object.keys(decoded).length === 0 ? '' : `---\n${stringifyYaml({ decoded })}`;
  expectGolden(`components/${name}.yaml`, rendered + readable);
}

export const SHELLCHECK_INSTALL_HINT = 'apt-get update && apt-get install -y shellcheck';

/** shellcheck's findings for a bash script (empty when clean); throws when shellcheck is missing. */
export function shellcheck(script: string, command = 'shellcheck'): string[] {
  const run = spawnSync(command, ['--shell=bash', '--format=gcc', '-'], {
    input: script,
    encoding: 'utf8',
  });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT')
    throw new Error(`shellcheck is not installed; install it with: ${SHELLCHECK_INSTALL_HINT}`);
  if (run.error) throw run.error;
  if (run.status !== 0 && run.stdout.trim() === '')
    throw new Error(`shellcheck failed (exit ${run.status}): ${run.stderr}`);
  return run.stdout.split('\n').filter((line) => line.trim() !== '');
}

/** `bash -n`: the script parses. */
export function bashSyntaxErrors(script: string): string {
  const run = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
  if (run.error) throw run.error;
  return run.status === 0 ? '' : run.stderr;
}
