/**
 * The parts of the v1.150.0 contract we render, judged by Gardener v1.150.0's own code
 * (hack/gardener-oracle-150): keys recomputed by `operatingsystemconfig.Key`, our OSC objects and
 * node agent configurations strictly decoded and validated, our OSC secrets against
 * `OperatingSystemConfigSecret` and our ManagedResource data against its registry.
 */

import { expect } from 'chai';
import { encodeNodeAgentConfigurationV150, parseRfc3339, parseSemVer } from '../../../api/index.js';
import { type KeyV150Input, keyV150 } from '../../../api/keys-v150.js';
import { oscSecretV150 } from '../../../charts/managed-resource/osc-secret-v150.js';
import { nodeAgentRbacV150 } from '../../../charts/managed-resource/rbac-v150.js';
import { registryCaBundleObjectsV150 } from '../../../charts/managed-resource/registry-ca-bundle-v150.js';
import { registryDataV150 } from '../../../charts/managed-resource/registry-v150.js';
import { type OscV150Pool, oscObjectV150 } from '../../../charts/operating-system-config/osc-object-v150.js';
import { provisionContentsV150 } from '../../../charts/operating-system-config/provision-contents-v150.js';
import {
  nodeAgentComponentConfigV150,
  nodeInitComponentConfigV150,
} from '../../../components/node-agent/component-config-v150.js';
import { nodeAgentV150 } from '../../../components/node-agent/node-agent-v150.js';
import { nodeInitV150 } from '../../../components/node-init/node-init-v150.js';
import { ORACLE_BUILD_TIMEOUT_MS, oracle150, stopOracle150 } from '../support/oracle-150.js';

/** A deterministic generator, so a failure names a reproducible case. */
function generator(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const maybe = <T>(value: T): T | undefined => (next() < 0.5 ? value : undefined);
  return { next, pick, maybe };
}

const QUANTITIES = [
  '100m',
  '1Gi',
  '1024Mi',
  '1.5Gi',
  '0.5',
  '1000',
  '80m',
  '+1Gi',
  '5.',
  '007',
  '12.345k',
  '1E3',
  '3000m',
];
const TIMES = ['2026-01-02T03:04:05Z', '2025-03-04T05:06:07+02:00', '2026-08-28T00:00:00.5Z'];

function keyCases(count: number): KeyV150Input[] {
  const { next, pick, maybe } = generator(42);
  const rotation = () =>
    maybe({
      lastInitiationTime: maybe(pick(TIMES)),
      pendingWorkersRollouts: maybe([{ name: pick(['worker-a', 'b']), lastInitiationTime: pick(TIMES) }]),
    });
  return Array.from({ length: count }, () => ({
    pool: pick(['worker-a', 'b', 'pool-x']),
    kubernetesVersion: pick(['1.32.3', '1.33.0', '1.34.1', '1.35.2', '1.36.0']),
    machineType: pick(['m5.large', 'n1-standard-2']),
    image: maybe({ name: pick(['gardenlinux', 'ubuntu']), version: maybe(pick(['1877.0.0', '22.4'])) }),
    volume: maybe({ size: pick(['50Gi', '20Gi']), type: maybe(pick(['gp3', 'pd-ssd'])) }),
    criName: maybe('containerd'),
    updateStrategy:
      next() < 0.1 ? pick(['AutoInPlaceUpdate', 'ManualInPlaceUpdate', 'AutoRollingUpdate']) : undefined,
    credentialsRotation: maybe({ certificateAuthorities: rotation(), serviceAccountKey: rotation() }),
    nodeLocalDnsEnabled: next() < 0.5,
    kubeProxy: maybe({ enabled: maybe(next() < 0.5), mode: maybe(pick(['IPVS', 'IPTables'])) }),
    kubelet: maybe({
      kubeReserved: maybe({
        cpu: maybe(pick(QUANTITIES)),
        memory: maybe(pick(QUANTITIES)),
        pid: maybe(pick(QUANTITIES)),
        ephemeralStorage: maybe(pick(QUANTITIES)),
      }),
      evictionHard: maybe({
        memoryAvailable: maybe('100Mi'),
        nodeFSAvailable: maybe('5%'),
        imageFSInodesFree: '10%',
      }),
      cpuManagerPolicy: maybe(pick(['none', 'static'])),
    }),
  }));
}

/** The oracle's `names` input: what calculateKeyForValues reads, as the Go types decode it. */
const keyInput = (c: KeyV150Input): unknown =>
  JSON.parse(
    JSON.stringify({
      version: c.kubernetesVersion,
      credentialsRotation: c.credentialsRotation,
      worker: {
        name: c.pool,
        machine: { type: c.machineType, image: c.image },
        volume: c.volume,
        cri: c.criName ? { name: c.criName } : undefined,
        updateStrategy: c.updateStrategy,
        minimum: 1,
        maximum: 1,
      },
      nodeLocalDNSEnabled: c.nodeLocalDnsEnabled,
      kubeletConfig: c.kubelet,
      kubeProxyConfig: c.kubeProxy,
    }),
  );

const KEY = 'gardener-node-agent-worker-a-1296c0b754ed56ec';
const POOLS: OscV150Pool[] = [
  {
    key: KEY,
    pool: 'worker-a',
    image: { name: 'gardenlinux', version: '1877.0.0' },
    criName: 'containerd',
    pauseImage: 'registry.k8s.io/pause:3.10',
  },
  {
    key: 'gardener-node-agent-b',
    pool: 'b',
    criName: 'containerd',
    pauseImage: 'p:1',
    inPlace: { kubeletVersion: '1.34.1', caRotationLastInitiationTime: '2026-01-02T03:04:05Z' },
  },
  { key: 'gardener-node-agent-c-0123456789abcdef', pool: 'c' },
];

function nodeAgentContents() {
  const contents = nodeAgentV150({
    config: nodeAgentComponentConfigV150({
      oscSecretName: KEY,
      kubernetesVersion: parseSemVer('1.34.1'),
      apiServerUrl: 'https://api.bar.foo.internal.example.com',
      logShipper: 'opentelemetry-collector',
    }),
    gitVersion: 'v1.150.0',
    caBundle: '-----BEGIN CERTIFICATE-----\nY2E=\n-----END CERTIFICATE-----\n',
    image: 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.150.0',
  });
  const ref = {
    path: '/etc/ref',
    permissions: 0o600,
    content: { secretRef: { name: 'ref-secret', dataKey: 'k' } },
  };
  return { units: contents.units, files: [...contents.files, ref] };
}

const REF_SECRET = { name: 'ref-secret', data: { k: Buffer.from('secret bytes\n').toString('base64') } };
const seedSecrets = (name: string) => (name === 'ref-secret' ? { k: 'secret bytes\n' } : undefined);

describe('compat v1.150.0: what we render of the contract, judged by upstream', function () {
  this.timeout(ORACLE_BUILD_TIMEOUT_MS);
  after(() => stopOracle150());

  it('computes every OSC key as operatingsystemconfig.Key does (400 generated pools)', async () => {
    const cases = keyCases(400);
    const result = await oracle150().ask<{ keys: { key: string; provision: string; reconcile: string }[] }>(
      'names',
      {
        keys: cases.map(keyInput),
        managedResourceSecrets: [],
        checksums: [],
      },
    );
    const differing = cases.flatMap((c, i) =>
      keyV150(c) === result.keys[i]?.key
        ? []
        : [`${JSON.stringify(c)}: ours ${keyV150(c)}, upstream ${result.keys[i]?.key}`],
    );
    expect(differing).to.deep.equal([]);
    expect(result.keys.filter((k) => /-[0-9a-f]{16}$/.test(k.key)).length).to.be.greaterThan(300);
  });

  it('writes OSC objects and node agent configurations that v1.150 decodes strictly and validates', async () => {
    const contents = nodeAgentContents();
    const now = parseRfc3339('2026-08-28T12:00:00Z');
    const nodeInit = nodeInitV150({
      image: 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.150.0',
      config: nodeInitComponentConfigV150({
        oscSecretName: KEY,
        kubernetesVersion: parseSemVer('1.34.1'),
        apiServerUrl: 'https://a',
      }),
      gitVersion: 'v1.150.0',
      clusterCaBundle: '-----BEGIN CERTIFICATE-----\nY2E=\n-----END CERTIFICATE-----\n',
    });
    const documents = [
      ...POOLS.flatMap((p) => [
        JSON.stringify(oscObjectV150(p, 'provision', nodeInit, 'shoot--foo--bar', now)),
        JSON.stringify(
          oscObjectV150(
            p,
            'provision',
            provisionContentsV150(nodeInit, {
              sshAccessEnabled: true,
              sshPublicKeys: ['ssh-ed25519 AAAA a'],
            }),
            'shoot--foo--bar',
            now,
          ),
        ),
        JSON.stringify(oscObjectV150(p, 'reconcile', contents, 'shoot--foo--bar', now)),
      ]),
      encodeNodeAgentConfigurationV150(
        nodeInitComponentConfigV150({
          oscSecretName: KEY,
          kubernetesVersion: parseSemVer('1.36.0'),
          apiServerUrl: 'https://a',
        }),
      ),
      // the check can fail: 1.31 is no v1.150 minor
      encodeNodeAgentConfigurationV150(
        nodeAgentComponentConfigV150({
          oscSecretName: KEY,
          kubernetesVersion: parseSemVer('1.31.0'),
          apiServerUrl: 'https://a',
          logShipper: 'valitail',
        }),
      ),
    ];
    const verdicts = await oracle150().ask<{ kind: string; errors: string[] }[]>('validate', { documents });
    expect(verdicts.slice(0, -1).flatMap((v) => v.errors)).to.deep.equal([]);
    expect(verdicts.at(-1)?.errors.join()).to.contain('unsupported kubernetes version "1.31.0"');
  });

  it('writes the OSC secret as OperatingSystemConfigSecret does: osc.yaml, checksum, labels', async () => {
    const contents = nodeAgentContents();
    for (const pool of POOLS) {
      const osc = {
        ...oscObjectV150(
          pool,
          'reconcile',
          contents,
          'shoot--foo--bar',
          parseRfc3339('2026-08-28T12:00:00Z'),
        ),
        status: {
          extensionUnits: [{ name: 'ext.service', enable: true }],
          extensionFiles: [{ path: '/ext', content: { secretRef: { name: 'ref-secret', dataKey: 'k' } } }],
        },
      };
      const ours = oscSecretV150(osc as never, pool.key, pool.pool, seedSecrets);
      const upstream = await oracle150().ask<{
        secret: {
          metadata: { labels: Record<string, string>; annotations: Record<string, string> };
          data: Record<string, string>;
        };
      }>('oscSecret', { osc, secrets: [REF_SECRET], secretName: pool.key, pool: pool.pool });
      expect(ours.data['osc.yaml'], pool.key).to.equal(upstream.secret.data['osc.yaml']);
      expect(ours.metadata.annotations).to.deep.equal(upstream.secret.metadata.annotations);
      expect(ours.metadata.labels).to.deep.equal(upstream.secret.metadata.labels);
    }
  });

  it("compresses ManagedResource data as gardenlet's registry does", async () => {
    const secret = oscSecretV150(
      { spec: { units: [{ name: 'a.service', content: 'x' }] } },
      KEY,
      'worker-a',
      seedSecrets,
    );
    for (const objects of [
      nodeAgentRbacV150(),
      [secret as unknown as Record<string, unknown>],
      // the registry CA's ConfigMap, Role and RoleBinding (V150-4), as gardenlet's shoot-system builds them
      registryCaBundleObjectsV150(
        '-----BEGIN CERTIFICATE-----\ncmVnaXN0cnktY2E=\n-----END CERTIFICATE-----\n',
      ),
    ]) {
      const upstream = await oracle150().ask<Record<string, string>>('registry', { objects });
      expect(registryDataV150(objects)['data.yaml.br']?.toString('base64')).to.equal(
        upstream['data.yaml.br'],
      );
    }
  });
});
