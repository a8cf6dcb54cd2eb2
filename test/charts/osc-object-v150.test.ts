/** The OSC objects of the Gardener v1.150.0 contract: names, metadata, criConfig, in-place updates. */
import { expect } from 'chai';
import { parseRfc3339 } from '../../api/index.js';
import {
  criConfigV150,
  type OscV150Pool,
  oscObjectV150,
} from '../../charts/operating-system-config/osc-object-v150.js';

const POOL: OscV150Pool = {
  key: 'gardener-node-agent-worker-a-1296c0b754ed56ec',
  pool: 'worker-a',
  image: { name: 'gardenlinux', version: '1877.0.0' },
  criName: 'containerd',
  pauseImage: 'registry.k8s.io/pause:3.10',
};
const NOW = parseRfc3339('2026-08-28T12:00:00.5Z');
const EMPTY = { units: [], files: [] };

describe('OSC objects of the v1.150.0 contract', () => {
  it('names both OSCs without the image, labels them with the webhook marker, annotates as v1.91 did', () => {
    const provision = oscObjectV150(POOL, 'provision', EMPTY, 'shoot--foo--bar', NOW);
    expect(provision.metadata).to.deep.equal({
      name: 'gardener-node-agent-worker-a-1296c0b754ed56ec-init',
      namespace: 'shoot--foo--bar',
      labels: {
        'provider.extensions.gardener.cloud/mutated-by-controlplane-webhook': 'true',
        'worker.gardener.cloud/pool': 'worker-a',
      },
      annotations: {
        'gardener.cloud/operation': 'reconcile',
        'gardener.cloud/timestamp': '2026-08-28T12:00:00.5Z',
      },
    });
    const reconcile = oscObjectV150(POOL, 'reconcile', EMPTY, 'shoot--foo--bar', NOW);
    expect((reconcile.metadata as { name: string }).name).to.equal(
      'gardener-node-agent-worker-a-1296c0b754ed56ec-original',
    );
    expect(reconcile.spec).to.not.have.property('reloadConfigFilePath');
  });

  it('gives the reconcile OSC of a containerd pool cgroupDriver systemd and the sandbox image, the provision OSC only the name', () => {
    expect(criConfigV150(POOL, 'provision')).to.deep.equal({ name: 'containerd' });
    expect(criConfigV150(POOL, 'reconcile')).to.deep.equal({
      name: 'containerd',
      cgroupDriver: 'systemd',
      containerd: { sandboxImage: 'registry.k8s.io/pause:3.10' },
    });
    expect(criConfigV150({ ...POOL, criName: undefined }, 'reconcile')).to.equal(undefined);
  });

  it('writes type and providerConfig only from a machine image, and purpose always', () => {
    const noImage = oscObjectV150({ ...POOL, image: undefined }, 'provision', EMPTY, 'ns', NOW);
    expect(noImage.spec).to.deep.equal({ criConfig: { name: 'containerd' }, type: '', purpose: 'provision' });
    const withConfig = oscObjectV150(
      { ...POOL, image: { name: 'gardenlinux', providerConfig: { a: 1 } } },
      'provision',
      EMPTY,
      'ns',
      NOW,
    );
    expect(withConfig.spec).to.deep.include({ type: 'gardenlinux', providerConfig: { a: 1 } });
  });

  it('carries inPlaceUpdates on the reconcile OSC of in-place pools only', () => {
    const inPlace: OscV150Pool = {
      ...POOL,
      key: 'gardener-node-agent-worker-a',
      inPlace: { kubeletVersion: '1.34.1', caRotationLastInitiationTime: '2026-08-01T10:00:00.7+02:00' },
    };
    const spec = oscObjectV150(inPlace, 'reconcile', EMPTY, 'ns', NOW).spec as Record<string, unknown>;
    expect(spec.inPlaceUpdates).to.deep.equal({
      kubelet: '1.34.1',
      operatingSystemVersion: '1877.0.0',
      credentialsRotation: {
        certificateAuthorities: { lastInitiationTime: '2026-08-01T08:00:00Z' },
        serviceAccountKey: {},
      },
    });
    expect(oscObjectV150(inPlace, 'provision', EMPTY, 'ns', NOW).spec).to.not.have.property('inPlaceUpdates');
    expect(oscObjectV150(POOL, 'reconcile', EMPTY, 'ns', NOW).spec).to.not.have.property('inPlaceUpdates');
  });
});
