import { expect } from 'chai';
import { decodeCluster } from '../../api/schema/cluster.js';

const cluster = (shoot: Record<string, unknown>) => ({
  apiVersion: 'extensions.gardener.cloud/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'shoot--dev--demo' },
  spec: {
    cloudProfile: {
      metadata: { name: 'local' },
      spec: { machineTypes: [{ name: 'm', memory: '16Gi', cpu: 4 }], futureThing: 1 },
    },
    seed: { metadata: { name: 'seed' }, spec: { ingress: { domain: 'ingress.seed.example.com' } } },
    shoot,
  },
});

const SHOOT = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Shoot',
  metadata: { name: 'demo', namespace: 'garden-dev', annotations: { a: 'b' } },
  spec: {
    kubernetes: { version: '1.30.2', kubelet: { maxPods: 64, kubeReserved: { pid: 100 } } },
    provider: {
      type: 'local',
      workers: [
        {
          name: 'pool',
          machine: { type: 'm', image: { name: 'gardenlinux' } },
          cri: { name: 'containerd' },
          newerField: { x: 1 },
        },
      ],
    },
    resources: [{ name: 'unmodelled' }],
  },
  status: { technicalID: 'shoot--dev--demo', lastOperation: { state: 'Succeeded' } },
};

describe('Cluster', () => {
  it('decodes the embedded Shoot, CloudProfile and Seed tolerantly', () => {
    const r = decodeCluster(cluster(SHOOT));
    expect(r.ok, JSON.stringify(r)).to.equal(true);
    if (!r.ok) return;
    expect(r.value.shoot.spec.provider.workers[0]!.cri?.name).to.equal('containerd');
    expect(r.value.shoot.spec.provider.workers[0]).not.to.have.property('newerField');
    expect(r.value.shoot.spec.kubernetes.kubelet?.kubeReserved?.pid).to.equal('100');
    expect(r.value.cloudProfile.spec.machineTypes[0]!.memory).to.equal('16Gi');
    expect(r.value.seed.spec.ingress?.domain).to.equal('ingress.seed.example.com');
  });

  it('names the embedded field that is wrong', () => {
    const bad = { ...SHOOT, spec: { ...SHOOT.spec, kubernetes: { version: 1.3 } } };
    const r = decodeCluster(cluster(bad));
    expect(r.ok).to.equal(false);
    if (!r.ok) expect(r.errors.map((e) => e.field)).to.deep.equal(['spec.shoot.spec.kubernetes.version']);
  });
});
