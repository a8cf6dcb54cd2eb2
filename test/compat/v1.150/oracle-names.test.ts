import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { oracle150 } from '../support/oracle-150.js';
import { useOracle150 } from '../support/use-oracle-150.js';

interface OscNames {
  key: string;
  provision: string;
  reconcile: string;
}
interface NamesResult {
  keys: OscNames[];
  managedResourceSecrets: string[];
  checksums: string[];
}

const worker = (overrides: Record<string, unknown> = {}) => ({
  name: 'worker-a',
  machine: { type: 'm5.large', image: { name: 'gardenlinux', version: '1877.0.0' } },
  volume: { size: '50Gi', type: 'gp3' },
  cri: { name: 'containerd' },
  minimum: 1,
  maximum: 3,
  ...overrides,
});

const names = (input: Record<string, unknown>) => oracle150().ask<NamesResult>('names', input);
const keyOf = async (key: Record<string, unknown>) => (await names({ keys: [key] })).keys[0] as OscNames;

describe('gardener-oracle-150 names: the v1.150.0 OSC key and names (gardener v1.150.0 operatingsystemconfig.Key)', () => {
  useOracle150();

  it('names a pool gardener-node-agent-<pool>-<16 hex digits>, its OSCs -init and -original (no image name)', async () => {
    const k = await keyOf({ version: '1.34.1', worker: worker() });
    // the reference pool's key, as measured with gardenlet v1.150.0 and recomputed by hand
    expect(k.key).to.equal('gardener-node-agent-worker-a-1296c0b754ed56ec');
    expect(k.provision).to.equal(`${k.key}-init`);
    expect(k.reconcile).to.equal(`${k.key}-original`);
  });

  it('hashes the minor version, machine type, image, volume, CRI, NodeLocalDNS and 3 kubelet settings, not the patch version nor maxPods', async () => {
    const base = await keyOf({ version: '1.34.1', worker: worker() });
    expect((await keyOf({ version: '1.34.3', worker: worker() })).key).to.equal(base.key);
    expect(
      (await keyOf({ version: '1.34.1', worker: worker(), kubeletConfig: { maxPods: 64 } })).key,
    ).to.equal(base.key);
    const changed = [
      { version: '1.35.0', worker: worker() },
      {
        version: '1.34.1',
        worker: worker({
          machine: { type: 'm5.2xlarge', image: { name: 'gardenlinux', version: '1877.0.0' } },
        }),
      },
      {
        version: '1.34.1',
        worker: worker({
          machine: { type: 'm5.large', image: { name: 'gardenlinux', version: '1877.1.0' } },
        }),
      },
      { version: '1.34.1', worker: worker({ volume: { size: '60Gi', type: 'gp3' } }) },
      { version: '1.34.1', worker: worker({ cri: undefined }) },
      { version: '1.33.2', worker: worker(), nodeLocalDNSEnabled: true },
      { version: '1.34.1', worker: worker(), kubeletConfig: { cpuManagerPolicy: 'static' } },
    ];
    for (const input of changed)
      expect((await keyOf(input)).key, JSON.stringify(input)).to.not.equal(base.key);
  });

  it('from Kubernetes 1.34 on, hashes NodeLocalDNS only with kube-proxy in IPVS mode', async () => {
    const plain = await keyOf({ version: '1.34.1', worker: worker() });
    const dns = await keyOf({ version: '1.34.1', worker: worker(), nodeLocalDNSEnabled: true });
    const ipvs = await keyOf({
      version: '1.34.1',
      worker: worker(),
      nodeLocalDNSEnabled: true,
      kubeProxyConfig: { enabled: true, mode: 'IPVS' },
    });
    expect(dns.key).to.equal(plain.key);
    expect(ipvs.key).to.not.equal(plain.key);
  });

  it('gives in-place pools a fixed name', async () => {
    const k = await keyOf({ version: '1.34.1', worker: worker({ updateStrategy: 'AutoInPlaceUpdate' }) });
    expect(k.key).to.equal('gardener-node-agent-worker-a');
  });

  it('computes checksums as sha256 and ManagedResource secret names from their data', async () => {
    const data = Buffer.from('osc.yaml bytes');
    const result = await names({
      checksums: [data.toString('base64')],
      managedResourceSecrets: [
        { name: 'shoot-gardener-node-agent-worker-a', data: { a: data.toString('base64') } },
      ],
    });
    expect(result.checksums).to.deep.equal([createHash('sha256').update(data).digest('hex')]);
    expect(result.managedResourceSecrets[0]).to.match(
      /^managedresource-shoot-gardener-node-agent-worker-a-[0-9a-f]{8}$/,
    );
  });
});
