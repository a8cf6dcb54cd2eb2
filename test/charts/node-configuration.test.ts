import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  type Cluster,
  decodeCluster,
  type OperatingSystemConfig,
  parseRfc3339,
  parseYaml,
} from '../../api/index.js';
import { renderNodeConfiguration } from '../../charts/node-configuration.js';
import { RenderValuesSchema } from '../../charts/values/render-values.js';
import {
  clusterDnsFromServices,
  shootCaBundle,
  valiIngressHost,
} from '../../charts/values/worker-pool-context.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');

function exampleCluster(edit?: (raw: { spec: { shoot: unknown } }) => void): Cluster {
  const raw = parseYaml(readFileSync(join(EXAMPLES, 'cluster.yaml'), 'utf8')) as never;
  edit?.(raw);
  const decoded = decodeCluster(raw);
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
  return decoded.value;
}

// upstream's vectors are v1.91's: the shared ServiceAccount (per-node identities: the last suite)
const values = {
  ...RenderValuesSchema.parse(parseYaml(readFileSync(join(EXAMPLES, 'values.yaml'), 'utf8'))),
  nodeAgentIdentity: 'serviceAccount' as const,
};
const now = parseRfc3339('2024-01-01T00:00:00Z');
const render = (cluster = exampleCluster(), useGardenerNodeAgent = true) =>
  renderNodeConfiguration({ cluster, values, useGardenerNodeAgent, legacyNodes: false, now });
const oscs = (objects: readonly { kind: string }[]) =>
  objects.filter((o) => o.kind === 'OperatingSystemConfig') as OperatingSystemConfig[];

// Upstream: gardener v1.91.4
// pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go,
// pkg/gardenlet/operation/botanist/operatingsystemconfig.go.
describe('node configuration of a shoot', () => {
  it('S-TV-3: OSC names, annotations, labels, type, providerConfig, criConfig and reload path', () => {
    const all = oscs(render().seed);
    expect(all.map((o) => o.metadata.name)).to.deep.equal([
      'gardener-node-agent-cpu-worker-46fed-gardenlinux-init',
      'gardener-node-agent-cpu-worker-46fed-gardenlinux-original',
      'gardener-node-agent-gpu-worker-45c61-ubuntu-init',
      'gardener-node-agent-gpu-worker-45c61-ubuntu-original',
      'gardener-node-agent-arm-worker-7d069-gardenlinux-init',
      'gardener-node-agent-arm-worker-7d069-gardenlinux-original',
    ]);
    for (const o of all) {
      expect(o.metadata.annotations).to.deep.equal({
        'gardener.cloud/operation': 'reconcile',
        'gardener.cloud/timestamp': '2024-01-01T00:00:00Z',
      });
      expect(o.metadata.namespace).to.equal('shoot--dev--demo');
      expect(o.spec.reloadConfigFilePath).to.equal(
        o.spec.purpose === 'reconcile'
          ? '/var/lib/cloud-config-downloader/downloads/cloud_config'
          : undefined,
      );
    }
    const gpu = all[2]!;
    expect(gpu.metadata.labels).to.deep.equal({ 'worker.gardener.cloud/pool': 'gpu-worker' });
    expect(gpu.spec.type).to.equal('ubuntu');
    expect(gpu.spec.criConfig, 'no CRI on the pool: no criConfig').to.equal(undefined);
    expect(gpu.spec.providerConfig).to.deep.include({ disableUnattendedUpgrades: true });
    expect(all[0]!.spec.criConfig).to.deep.equal({ name: 'containerd' });
  });

  it('S-TV-4: provision = node init (+ gardener-user, sshd-ensurer); reconcile = original + node-init unit + init.sh', () => {
    const [provision, reconcile] = oscs(render().seed);
    expect(provision!.spec.units!.map((u) => u.name)).to.deep.equal([
      'gardener-node-init.service',
      'gardener-user.service',
      'sshd-ensurer.service',
    ]);
    expect(reconcile!.spec.units!.at(-1)!.name).to.equal('gardener-node-init.service');
    const files = reconcile!.spec.files!.map((f) => f.path);
    expect(files.at(-1)).to.equal('/var/lib/gardener-node-agent/init.sh');
    expect(files).not.to.include('/var/lib/gardener-node-agent/credentials/bootstrap-token');
    expect(files.filter((p) => p === '/var/lib/gardener-node-agent/config.yaml')).to.have.length(1);
  });

  it('without SSH the provision OSC holds node init only; a Kubernetes version bump renames the key', () => {
    const noSsh = exampleCluster((raw) => {
      (raw.spec.shoot as { spec: { provider: { workersSettings: unknown } } }).spec.provider.workersSettings =
        { sshAccess: { enabled: false } };
    });
    expect(oscs(render(noSsh).seed)[0]!.spec.units!.map((u) => u.name)).to.deep.equal([
      'gardener-node-init.service',
    ]);
    const bumped = exampleCluster((raw) => {
      (raw.spec.shoot as { spec: { kubernetes: { version: string } } }).spec.kubernetes.version = '1.31.1';
    });
    // the same <major>.<minor> + CRI as arm-worker (1.31, containerd): the same hash
    expect(oscs(render(bumped).seed)[0]!.metadata.name).to.equal(
      'gardener-node-agent-cpu-worker-7d069-gardenlinux-init',
    );
  });

  it('ships one OSC secret per pool and the RBAC naming them; the shoot side carries the injected label', () => {
    const { seed, shoot } = render();
    const mr = seed.find((o) => o.kind === 'ManagedResource') as unknown as {
      spec: { secretRefs: { name: string }[] };
    };
    expect(mr.spec.secretRefs.map((r) => r.name.replace(/-[0-9a-f]{8}$/, ''))).to.deep.equal([
      'managedresource-shoot-gardener-node-agent-cpu-worker',
      'managedresource-shoot-gardener-node-agent-gpu-worker',
      'managedresource-shoot-gardener-node-agent-arm-worker',
      'managedresource-shoot-gardener-node-agent-rbac',
    ]);
    const secrets = shoot.filter((o) => o.kind === 'Secret');
    expect(secrets.map((s) => s.metadata.name)).to.deep.equal([
      'gardener-node-agent-cpu-worker-46fed',
      'gardener-node-agent-gpu-worker-45c61',
      'gardener-node-agent-arm-worker-7d069',
    ]);
    for (const o of shoot) expect(o.metadata.labels?.['shoot.gardener.cloud/no-cleanup']).to.equal('true');
    const role = shoot.find((o) => o.kind === 'Role') as unknown as { rules: { resourceNames?: string[] }[] };
    expect(role.rules[0]!.resourceNames).to.include.members(secrets.map((s) => s.metadata.name!));
  });

  it('renders the legacy downloader OSCs and the executor ManagedResource with the gate off', () => {
    const { seed, shoot, warnings } = render(exampleCluster(), false);
    const [provision, reconcile] = oscs(seed);
    expect(provision!.metadata.name).to.equal('cloud-config-cpu-worker-46fed-gardenlinux-downloader');
    expect(provision!.spec.units!.map((u) => u.name)).to.deep.equal(['cloud-config-downloader.service']);
    expect(reconcile!.spec.files!.map((f) => f.path)).to.include(
      '/etc/systemd/system/cloud-config-downloader.service',
    );
    expect(seed.map((o) => o.metadata.name)).to.include('shoot-access-cloud-config-downloader');
    expect(shoot.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name)).to.deep.equal([
      'cloud-config-cpu-worker-46fed',
      'cloud-config-gpu-worker-45c61',
      'cloud-config-arm-worker-7d069',
    ]);
    const mr = seed.find((o) => o.kind === 'ManagedResource') as unknown as { metadata: { name: string } };
    expect(mr.metadata.name).to.equal('shoot-cloud-config-execution');
    expect(seed.some((o) => o.metadata.name === 'shoot-gardener-node-agent')).to.equal(false);
    expect(warnings.join('\n')).to.contain('reference OS-extension rendering');
  });

  it('while legacy nodes remain with the gate on, both ManagedResources; the legacy one from the gate-on OSC', () => {
    const { seed, shoot } = renderNodeConfiguration({
      cluster: exampleCluster(),
      values,
      useGardenerNodeAgent: true,
      legacyNodes: true,
      now,
    });
    const mrs = seed.filter((o) => o.kind === 'ManagedResource').map((o) => o.metadata.name);
    expect(mrs).to.deep.equal(['shoot-gardener-node-agent', 'shoot-cloud-config-execution']);
    const executor = shoot.find((o) => o.metadata.name === 'cloud-config-cpu-worker-46fed') as unknown as {
      data: { script: string };
    };
    const script = Buffer.from(executor.data.script, 'base64').toString('utf8');
    expect(script).to.contain('gardener-node-init.service');
    const ignored = shoot.filter(
      (o) =>
        o.kind === 'ClusterRoleBinding' &&
        (o.metadata as { annotations?: Record<string, string> }).annotations?.[
          'resources.gardener.cloud/mode'
        ] === 'Ignore',
    );
    expect(ignored).to.have.length(3);
    expect(seed.map((o) => o.metadata.name)).to.include.members([
      'shoot-access-cloud-config-downloader',
      'shoot-access-gardener-node-agent',
    ]);
  });

  it('renders only the access secrets and the OSC pairs when asked for what precedes the OS extension', () => {
    const cluster = exampleCluster();
    for (const [gate, legacyNodes] of [
      [true, false],
      [true, true],
      [false, true],
    ] as const) {
      const input = { cluster, values, useGardenerNodeAgent: gate, legacyNodes, now };
      const full = renderNodeConfiguration(input);
      const first = renderNodeConfiguration({ ...input, oscsOnly: true });
      const wanted = full.seed.filter(
        (o) =>
          o.kind === 'OperatingSystemConfig' ||
          (o.kind === 'Secret' && (o.metadata.name ?? '').startsWith('shoot-access-')),
      );
      expect(first.seed, `gate ${gate}, legacy nodes ${legacyNodes}`).to.deep.equal(wanted);
      expect(first.shoot).to.deep.equal([]);
      expect(first.warnings).to.deep.equal(full.warnings.filter((w) => !w.startsWith('ManagedResource ')));
    }
  });

  it('builds the CA bundle and the CoreDNS address as gardenlet does', () => {
    expect(shootCaBundle(undefined, 'CA')).to.equal('\nCA');
    expect(shootCaBundle('PROFILE', 'CA')).to.equal('PROFILE\nCA');
    expect(shootCaBundle(undefined, '')).to.equal(undefined);
    expect(clusterDnsFromServices('100.64.0.0/13')).to.equal('100.64.0.10');
    expect(clusterDnsFromServices('10.0.0.250/24')).to.equal('10.0.1.4');
    expect(() => clusterDnsFromServices('fd00::/64')).to.throw(/clusterDnsAddress/);
  });

  it('names Vali\'s host as gardenlet\'s ComputeIngressHost("v"): v-<short technical ID>.<ingress domain>', () => {
    expect(valiIngressHost('shoot--dev--demo', 'ingress.seed.example.com')).to.equal(
      'v-dev--demo.ingress.seed.example.com',
    );
    // The older single-dash technical IDs lose only `shoot-`; the dash after `v` stays.
    expect(valiIngressHost('shoot-dev--demo', 'ingress.seed.example.com')).to.equal(
      'v-dev--demo.ingress.seed.example.com',
    );
    expect(valiIngressHost('shoot-garden-local', 'seed.local')).to.equal('v-garden-local.seed.local');
  });
});

describe('node configuration with per-node identities', () => {
  const perNode = (legacyNodes: boolean) =>
    renderNodeConfiguration({
      cluster: exampleCluster(),
      values: { ...values, nodeAgentIdentity: 'node' },
      useGardenerNodeAgent: true,
      legacyNodes,
      now,
    });

  it('ships no shared token and no RBAC for agents or bootstrappers to read secrets', () => {
    const { seed, shoot } = perNode(false);
    expect(seed.map((o) => o.metadata.name)).not.to.include('shoot-access-gardener-node-agent');
    expect(shoot.map((o) => `${o.kind}/${o.metadata.name}`)).to.deep.equal([
      'Secret/gardener-node-agent-cpu-worker-46fed',
      'Secret/gardener-node-agent-gpu-worker-45c61',
      'Secret/gardener-node-agent-arm-worker-7d069',
      'ClusterRoleBinding/system:node-bootstrapper',
      'ClusterRoleBinding/system:certificates.k8s.io:certificatesigningrequests:nodeclient',
      'ClusterRoleBinding/system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
      'ClusterRoleBinding/gardener-node-agent:request-identity',
      'ValidatingAdmissionPolicy/gardener-node-agent',
      'ValidatingAdmissionPolicyBinding/gardener-node-agent',
      'ValidatingAdmissionPolicy/gardener-node-agent-kubelet',
      'ValidatingAdmissionPolicyBinding/gardener-node-agent-kubelet',
    ]);
  });

  it('while legacy nodes remain, the downloader Role no longer lists the agent token', () => {
    const role = perNode(true).shoot.find((o) => o.kind === 'Role') as unknown as {
      metadata: { name: string };
      rules: { resourceNames: string[] }[];
    };
    expect(role.metadata.name).to.equal('cloud-config-downloader');
    expect(role.rules[0]!.resourceNames).not.to.include('gardener-node-agent');
    expect(role.rules[0]!.resourceNames).to.include('cloud-config-downloader');
  });

  it('the agents of both OSCs name the identity kubeconfig', () => {
    for (const osc of oscs(perNode(false).seed)) {
      const config = osc.spec.files!.find((f) => f.path === '/var/lib/gardener-node-agent/config.yaml');
      if (!config) continue;
      const text = Buffer.from(config.content.inline!.data, 'base64').toString('utf8');
      expect(text, osc.metadata.name).to.contain(
        'kubeconfig: /var/lib/gardener-node-agent/credentials/kubeconfig',
      );
    }
  });
});
