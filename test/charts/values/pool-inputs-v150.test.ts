/** The v1.150.0 pool inputs read from a Shoot: key inputs and kube-controller-manager's grace period. */
import { expect } from 'chai';
import { keyV150, type Shoot, TolerantShoot, type Worker } from '../../../api/index.js';
import {
  effectiveKubeletConfig,
  effectiveKubernetesVersion,
  keyV150InputOf,
  nodeMonitorGracePeriodSeconds,
} from '../../../charts/values/pool-inputs-v150.js';

const WORKER = {
  name: 'worker-a',
  machine: { type: 'm5.large', image: { name: 'gardenlinux', version: '1877.0.0' } },
  volume: { size: '50Gi', type: 'gp3' },
  cri: { name: 'containerd' },
};

function shoot(
  extra: { spec?: Record<string, unknown>; status?: Record<string, unknown> } = {},
  worker: Record<string, unknown> = {},
): { shoot: Shoot; worker: Worker } {
  const parsed = TolerantShoot.Shoot.parse({
    metadata: { name: 'bar', namespace: 'garden-foo' },
    spec: {
      kubernetes: { version: '1.34.1', ...((extra.spec?.kubernetes as object) ?? {}) },
      provider: { type: 'aws', workers: [{ ...WORKER, ...worker }] },
      ...Object.fromEntries(Object.entries(extra.spec ?? {}).filter(([k]) => k !== 'kubernetes')),
    },
    ...(extra.status ? { status: extra.status } : {}),
  });
  return { shoot: parsed, worker: parsed.spec.provider.workers[0]! };
}

describe('v1.150.0 pool inputs read from the Shoot', () => {
  it('gives the reference pool the key gardenlet v1.150.0 measured', () => {
    const { shoot: s, worker } = shoot();
    expect(keyV150(keyV150InputOf(s, worker))).to.equal('gardener-node-agent-worker-a-1296c0b754ed56ec');
  });

  it("takes the worker's version and kubelet config over the shoot's, whole", () => {
    const { shoot: s, worker } = shoot(
      { spec: { kubernetes: { kubelet: { cpuManagerPolicy: 'static', maxPods: 64 } } } },
      { kubernetes: { version: '1.33.2', kubelet: { maxPods: 100 } } },
    );
    expect(effectiveKubernetesVersion(s, worker)).to.equal('1.33.2');
    expect(effectiveKubeletConfig(s, worker)).to.deep.equal({ maxPods: 100 });
    expect(keyV150InputOf(s, worker).kubelet).to.deep.equal({
      kubeReserved: undefined,
      evictionHard: undefined,
      cpuManagerPolicy: undefined,
    });
  });

  it('reads the update strategy and the credentials rotation times that the key hashes', () => {
    const rotation = {
      certificateAuthorities: {
        lastInitiationTime: '2026-08-01T10:00:00Z',
        pendingWorkersRollouts: [{ name: 'worker-a', lastInitiationTime: '2026-08-02T10:00:00Z' }],
      },
      serviceAccountKey: { lastInitiationTime: '2026-08-03T10:00:00Z' },
    };
    const { shoot: s, worker } = shoot({ status: { credentials: { rotation } } });
    const input = keyV150InputOf(s, worker);
    expect(input.credentialsRotation).to.deep.equal(rotation);
    expect(keyV150(input)).to.not.equal('gardener-node-agent-worker-a-1296c0b754ed56ec');
    const inPlace = shoot({}, { updateStrategy: 'AutoInPlaceUpdate' });
    expect(keyV150(keyV150InputOf(inPlace.shoot, inPlace.worker))).to.equal('gardener-node-agent-worker-a');
  });

  it('reads NodeLocalDNS and kube-proxy into the key inputs', () => {
    const { shoot: s, worker } = shoot({
      spec: {
        kubernetes: { kubeProxy: { enabled: true, mode: 'IPVS' } },
        systemComponents: { nodeLocalDNS: { enabled: true } },
      },
    });
    const input = keyV150InputOf(s, worker);
    expect(input.nodeLocalDnsEnabled).to.equal(true);
    expect(input.kubeProxy).to.deep.equal({ enabled: true, mode: 'IPVS' });
  });

  it("defaults kube-controller-manager's nodeMonitorGracePeriod to 40s as the API server does", () => {
    expect(nodeMonitorGracePeriodSeconds(shoot().shoot)).to.equal(40);
    const set = shoot({
      spec: { kubernetes: { kubeControllerManager: { nodeMonitorGracePeriod: '1m30.5s' } } },
    });
    expect(nodeMonitorGracePeriodSeconds(set.shoot)).to.equal(90.5);
  });
});
