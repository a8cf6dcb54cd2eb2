/** The Gardener v1.150.0 OSC key and names, and the Go string forms hashed inside the key. */
import { expect } from 'chai';
import { sha256Hex } from '../../api/checksum.js';
import { goQuantityString } from '../../api/go-quantity-string.js';
import { goTimeString } from '../../api/go-time-string.js';
import { key } from '../../api/keys.js';
import { type KeyV150Input, keyV150, keyV150Data, oscLabelsV150, oscNameV150 } from '../../api/keys-v150.js';
import { parseRfc3339 } from '../../api/time.js';

/** The spec's reference pool (gardener-v1.150 header): worker-a, m5.large, gardenlinux 1877.0.0, 50Gi gp3. */
const REFERENCE: KeyV150Input = {
  pool: 'worker-a',
  kubernetesVersion: '1.34.1',
  machineType: 'm5.large',
  image: { name: 'gardenlinux', version: '1877.0.0' },
  volume: { size: '50Gi', type: 'gp3' },
  criName: 'containerd',
  nodeLocalDnsEnabled: false,
};

describe('OSC key of the v1.150.0 contract', () => {
  it('gives the name gardenlet v1.150.0 rendered for the reference pool, where v1.91.4 gives 937e9', () => {
    expect(keyV150(REFERENCE)).to.equal('gardener-node-agent-worker-a-1296c0b754ed56ec');
    expect(key('worker-a', '1.34.1', 'containerd')).to.equal('gardener-node-agent-worker-a-937e9');
  });

  it('hashes the sha256 hex of every input, concatenated, in upstream order', () => {
    const data = keyV150Data(REFERENCE);
    expect(data).to.deep.equal(['1.34', 'm5.large', 'gardenlinux1877.0.0', '50Gi', 'gp3', 'containerd']);
    const expected = sha256Hex(data.map((d) => sha256Hex(d)).join('')).slice(0, 16);
    expect(keyV150(REFERENCE)).to.equal(`gardener-node-agent-worker-a-${expected}`);
  });

  it('leaves out inputs that do not apply, and each one that applies changes the key', () => {
    const bare: KeyV150Input = {
      pool: 'p',
      kubernetesVersion: '1.33.0',
      machineType: 'x',
      nodeLocalDnsEnabled: false,
    };
    expect(keyV150Data(bare)).to.deep.equal(['1.33', 'x']);
    expect(keyV150Data({ ...bare, image: { name: 'img' } })).to.deep.equal(['1.33', 'x', 'img']);
    expect(keyV150Data({ ...bare, volume: { size: '20Gi' } })).to.deep.equal(['1.33', 'x', '20Gi']);
    const variants: KeyV150Input[] = [
      bare,
      { ...bare, kubernetesVersion: '1.34.0' },
      { ...bare, machineType: 'y' },
      { ...bare, criName: 'containerd' },
      { ...bare, nodeLocalDnsEnabled: true },
      { ...bare, kubelet: { cpuManagerPolicy: 'static' } },
      {
        ...bare,
        credentialsRotation: { certificateAuthorities: { lastInitiationTime: '2026-01-02T03:04:05Z' } },
      },
    ];
    expect(new Set(variants.map(keyV150)).size).to.equal(variants.length);
    // a patch release changes nothing
    expect(keyV150({ ...bare, kubernetesVersion: '1.33.7' })).to.equal(keyV150(bare));
  });

  it('adds node-local-dns below 1.34, or in IPVS mode with kube-proxy enabled', () => {
    const dns = (kubernetesVersion: string, kubeProxy?: KeyV150Input['kubeProxy']) =>
      keyV150Data({
        ...REFERENCE,
        kubernetesVersion,
        nodeLocalDnsEnabled: true,
        ...(kubeProxy ? { kubeProxy } : {}),
      }).includes('node-local-dns');
    expect(dns('1.33.9')).to.equal(true);
    expect(dns('1.34.0')).to.equal(false);
    expect(dns('1.35.0', { enabled: true, mode: 'IPVS' })).to.equal(true);
    expect(dns('1.35.0', { mode: 'IPVS' })).to.equal(false);
    expect(dns('1.35.0', { enabled: true, mode: 'IPTables' })).to.equal(false);
  });

  it('writes rotation times as Go time.Time.String(), the pool its own pending rollout', () => {
    const rotation = {
      certificateAuthorities: {
        lastInitiationTime: '2026-05-01T10:00:00Z',
        pendingWorkersRollouts: [{ name: 'worker-a', lastInitiationTime: '2026-04-30T09:08:07.5+02:00' }],
      },
      serviceAccountKey: { lastInitiationTime: '2026-05-02T11:00:00Z' },
    };
    const data = keyV150Data({ ...REFERENCE, credentialsRotation: rotation });
    expect(data.slice(6)).to.deep.equal(['2026-04-30 07:08:07.5 +0000 UTC', '2026-05-02 11:00:00 +0000 UTC']);
    const other = keyV150Data({ ...REFERENCE, pool: 'worker-b', credentialsRotation: rotation });
    expect(other.slice(6, 7)).to.deep.equal(['2026-05-01 10:00:00 +0000 UTC']);
  });

  it('writes kubelet reservations as %s of *resource.Quantity and eviction thresholds as given', () => {
    const data = keyV150Data({
      ...REFERENCE,
      kubelet: {
        kubeReserved: { cpu: '80m', memory: '1024Mi' },
        evictionHard: { memoryAvailable: '100Mi', nodeFSAvailable: '5%' },
        cpuManagerPolicy: 'none',
      },
    });
    expect(data.slice(6)).to.deep.equal(['80m-1Gi-<nil>-<nil>', '--100Mi-5%-', 'none']);
  });

  it('names in-place pools by the pool alone, and OSCs without the image name', () => {
    expect(keyV150({ ...REFERENCE, updateStrategy: 'AutoInPlaceUpdate' })).to.equal(
      'gardener-node-agent-worker-a',
    );
    expect(keyV150({ ...REFERENCE, updateStrategy: 'ManualInPlaceUpdate' })).to.equal(
      'gardener-node-agent-worker-a',
    );
    expect(keyV150({ ...REFERENCE, updateStrategy: 'AutoRollingUpdate' })).to.match(/-[0-9a-f]{16}$/);
    const k = keyV150(REFERENCE);
    expect(oscNameV150(k, 'provision')).to.equal('gardener-node-agent-worker-a-1296c0b754ed56ec-init');
    expect(oscNameV150(k, 'reconcile')).to.equal('gardener-node-agent-worker-a-1296c0b754ed56ec-original');
  });
});

describe('Go string forms', () => {
  it('time.Time.String() of a metav1.Time read from JSON, in UTC (outputs of Go 1.26.8)', () => {
    const cases: [string, string][] = [
      ['2024-01-01T00:00:00Z', '2024-01-01 00:00:00 +0000 UTC'],
      ['2025-03-04T05:06:07.123Z', '2025-03-04 05:06:07.123 +0000 UTC'],
      ['2025-03-04T05:06:07+02:00', '2025-03-04 03:06:07 +0000 UTC'],
      ['2025-12-31T23:59:59.000000001Z', '2025-12-31 23:59:59.000000001 +0000 UTC'],
    ];
    for (const [input, go] of cases) expect(goTimeString(parseRfc3339(input)), input).to.equal(go);
  });

  it('resource.Quantity.String() (outputs of k8s.io/apimachinery v0.36.4)', () => {
    const cases: [string | undefined, string][] = [
      [undefined, '<nil>'],
      ['0', '0'],
      ['0Gi', '0'],
      ['1024Mi', '1Gi'],
      ['1.5Gi', '1536Mi'],
      ['0.5', '500m'],
      ['1000', '1k'],
      ['100m', '100m'],
      ['1000Mi', '1000Mi'],
      ['1023Ki', '1023Ki'],
      ['512', '512'],
      ['2048', '2048'],
      ['1e3', '1e3'],
      ['1.5e3', '1500'],
      ['0.1m', '100u'],
      ['0.0000000001', '1n'],
      ['1500000', '1500k'],
      ['12e-3', '12e-3'],
      ['0.5Ki', '512'],
      ['0.25Gi', '256Mi'],
      ['+1Gi', '+1Gi'],
      ['7000k', '7M'],
      ['.5', '500m'],
      ['5.', '5.'],
      ['007', '007'],
      ['8Ki', '8Ki'],
      ['1.000Gi', '1Gi'],
      ['0.0015', '1500u'],
      ['1.50', '1500m'],
      ['-0.5', '-500m'],
      ['3e-3', '3e-3'],
      ['1.5e-3', '1500e-6'],
      ['12.345k', '12.345k'],
      ['1E3', '1E3'],
      ['3000m', '3'],
    ];
    for (const [input, go] of cases) expect(goQuantityString(input), String(input)).to.equal(go);
  });
});

describe('OSC labels of the v1.150.0 contract', () => {
  it('adds the control-plane webhook marker to the pool label', () => {
    expect(oscLabelsV150('worker-a')).to.deep.equal({
      'provider.extensions.gardener.cloud/mutated-by-controlplane-webhook': 'true',
      'worker.gardener.cloud/pool': 'worker-a',
    });
  });
});
