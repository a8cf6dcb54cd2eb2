/** The kubelet, pause image and node image of hack/real-kubelet, built once per machine. */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const HERE = import.meta.dirname;
const built = new Map<string, string>();

/** Runs a build script of this directory (progress on this process's stderr); its cache dir. */
function cacheOf(script: string): string {
  const known = built.get(script);
  if (known) return known;
  const out = execFileSync('bash', [resolve(HERE, script)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const dir = out.trim().split('\n').at(-1)!;
  built.set(script, dir);
  return dir;
}

/** The kubelet binary built from its Go module (build.sh). */
export function realKubeletBinary(): string {
  return join(cacheOf('build.sh'), 'kubelet');
}

/** The Kubernetes version the kubelet was built at, without the v (e.g. 1.34.4). */
export function realKubeletVersion(): string {
  const out = execFileSync(realKubeletBinary(), ['--version'], { encoding: 'utf8' });
  const version = /v(\d+\.\d+\.\d+)/.exec(out)?.[1];
  if (!version) throw new Error(`the kubelet printed no version: ${out}`);
  return version;
}

/** The real-node image with Debian's containerd, runc and CNI plugins (image.sh): rootfs/, nspawn/. */
export function realKubeletNodeImage(): string {
  return cacheOf('image.sh');
}
