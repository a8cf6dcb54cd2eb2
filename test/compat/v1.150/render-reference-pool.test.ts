/**
 * Our v1.150.0 parts against gardenlet v1.150.0's own render of the reference pool
 * (test/golden/render-v1.150/upstream-reference-pool-seed.yaml, written by the oracle): the
 * provision OSC whole, and of the reconcile OSC the metadata, criConfig and the node agent's
 * unit and files, each built from the inputs upstream's render shows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  type OscFile,
  type OscUnit,
  parseRfc3339,
  parseSemVer,
  parseYaml,
  stringifyYaml,
} from '../../../api/index.js';
import { keyV150 } from '../../../api/keys-v150.js';
import { type OscV150Pool, oscObjectV150 } from '../../../charts/operating-system-config/osc-object-v150.js';
import { provisionContentsV150 } from '../../../charts/operating-system-config/provision-contents-v150.js';
import {
  nodeAgentComponentConfigV150,
  nodeInitComponentConfigV150,
} from '../../../components/node-agent/component-config-v150.js';
import { nodeAgentV150 } from '../../../components/node-agent/node-agent-v150.js';
import { nodeInitV150 } from '../../../components/node-init/node-init-v150.js';

interface UpstreamOsc {
  metadata: { name: string; namespace: string; resourceVersion?: string } & Record<string, unknown>;
  spec: { type: string; criConfig: Record<string, unknown>; units: OscUnit[]; files: OscFile[] } & Record<
    string,
    unknown
  >;
}

const UPSTREAM = join(import.meta.dirname, '../../golden/render-v1.150/upstream-reference-pool-seed.yaml');
const docs = readFileSync(UPSTREAM, 'utf8')
  .split(/^---\n/m)
  .map((d) => parseYaml(d) as { kind?: string; metadata?: { name?: string } });
const osc = (suffix: string) =>
  docs.find(
    (d) => d.kind === 'OperatingSystemConfig' && d.metadata?.name?.endsWith(suffix),
  ) as unknown as UpstreamOsc;
const init = osc('-init');
const original = osc('-original');
const fileOf = (o: UpstreamOsc, path: string) => o.spec.files.find((f) => f.path === path);
const decoded = (f: OscFile | undefined) =>
  Buffer.from(f?.content.inline?.data ?? '', 'base64').toString('utf8');

// the inputs, as upstream's render shows them
const config = parseYaml(decoded(fileOf(init, '/var/lib/gardener-node-agent/config-v1.150.0.yaml'))) as {
  apiServer: { server: string };
  controllers: { operatingSystemConfig: { secretName: string; kubernetesVersion: string } };
};
const key = config.controllers.operatingSystemConfig.secretName;
const version = parseSemVer(config.controllers.operatingSystemConfig.kubernetesVersion);
const image =
  /^image="([^"]*)"$/m.exec(decoded(fileOf(init, '/var/lib/gardener-node-agent/init.sh')))?.[1] ?? '';
const clusterCa = decoded(fileOf(init, '/var/lib/gardener-node-agent/cluster-ca.crt'));
const sshKeys = decoded(fileOf(init, '/var/lib/gardener-user-authorized-keys')).split('\n');
const pool: OscV150Pool = {
  key,
  pool: 'worker-a',
  image: { name: init.spec.type, version: '1877.0.0' },
  criName: 'containerd',
  pauseImage: (original.spec.criConfig.containerd as { sandboxImage: string }).sandboxImage,
};
const NOW = parseRfc3339('2024-01-01T00:00:00Z');
const withoutVersion = ({ resourceVersion: _, ...metadata }: UpstreamOsc['metadata']) => metadata;

describe("compat v1.150.0: our parts against upstream's render of the reference pool", () => {
  it('names the pool as upstream: the key over its inputs', () => {
    expect(
      keyV150({
        pool: 'worker-a',
        kubernetesVersion: version,
        machineType: 'm5.large',
        image: { name: 'gardenlinux', version: '1877.0.0' },
        volume: { size: '50Gi', type: 'gp3' },
        criName: 'containerd',
        nodeLocalDnsEnabled: false,
      }),
    ).to.equal(key);
  });

  it('renders the provision OSC as upstream, but for gardener-user run.sh (V150-2)', () => {
    const nodeInit = nodeInitV150({
      image,
      config: nodeInitComponentConfigV150({
        oscSecretName: key,
        kubernetesVersion: version,
        apiServerUrl: config.apiServer.server,
      }),
      gitVersion: 'v1.150.0',
      clusterCaBundle: clusterCa,
    });
    const contents = provisionContentsV150(nodeInit, { sshAccessEnabled: true, sshPublicKeys: sshKeys });
    const ours = oscObjectV150(pool, 'provision', contents, init.metadata.namespace, NOW);
    expect(ours.metadata).to.deep.equal(withoutVersion(init.metadata));
    const runSh = '/var/lib/gardener-user/run.sh';
    const spec = (s: unknown) => {
      const o = structuredClone(s) as UpstreamOsc['spec'];
      o.files = o.files.filter((f) => f.path !== runSh);
      return stringifyYaml(o);
    };
    expect(spec(ours.spec)).to.equal(spec(init.spec));
    expect(fileOf(ours as unknown as UpstreamOsc, runSh)?.permissions).to.equal(
      fileOf(init, runSh)?.permissions,
    );
  });

  it('writes the reconcile OSC metadata, criConfig and the node agent unit and files as upstream', () => {
    const ours = oscObjectV150(pool, 'reconcile', { units: [], files: [] }, original.metadata.namespace, NOW);
    expect(ours.metadata).to.deep.equal(withoutVersion(original.metadata));
    expect((ours.spec as { criConfig: unknown }).criConfig).to.deep.equal(original.spec.criConfig);
    const agentImage = fileOf(original, '/opt/bin/gardener-node-agent')?.content.imageRef?.image ?? '';
    const agent = nodeAgentV150({
      config: nodeAgentComponentConfigV150({
        oscSecretName: key,
        kubernetesVersion: version,
        apiServerUrl: config.apiServer.server,
        logShipper: 'opentelemetry-collector',
      }),
      gitVersion: 'v1.150.0',
      caBundle: decoded(fileOf(original, '/var/lib/gardener-node-agent/cluster-ca.crt')),
      image: agentImage,
    });
    expect(agent.units).to.deep.equal(
      original.spec.units.filter((u) => u.name === 'gardener-node-agent.service'),
    );
    for (const file of agent.files) expect(file, file.path).to.deep.equal(fileOf(original, file.path));
  });
});
