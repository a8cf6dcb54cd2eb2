/**
 * The v1.150.0 OSC key of a pool read from a Shoot by our pipeline (charts/values/
 * pool-inputs-v150.ts) equals the key upstream's calculateKeyForValues gives for the same Shoot
 * fields (gardener v1.150.0 pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go).
 */
import { expect } from 'chai';
import { keyV150, TolerantShoot } from '../../../api/index.js';
import { keyV150InputOf } from '../../../charts/values/pool-inputs-v150.js';
import { oracle150 } from '../support/oracle-150.js';
import { useOracle150 } from '../support/use-oracle-150.js';

const worker = (overrides: Record<string, unknown> = {}) => ({
  name: 'worker-a',
  machine: { type: 'm5.large', image: { name: 'gardenlinux', version: '1877.0.0' } },
  volume: { size: '50Gi', type: 'gp3' },
  cri: { name: 'containerd' },
  ...overrides,
});

interface Case {
  kubernetes?: Record<string, unknown>;
  systemComponents?: Record<string, unknown>;
  rotation?: Record<string, unknown>;
  worker: Record<string, unknown>;
}

const CASES: Record<string, Case> = {
  'the reference pool': { worker: worker() },
  'a worker version and kubelet config of its own': {
    kubernetes: { kubelet: { cpuManagerPolicy: 'static' } },
    worker: worker({
      kubernetes: { version: '1.33.4', kubelet: { kubeReserved: { cpu: '80m', memory: '1024Mi' } } },
    }),
  },
  "the shoot's kubelet config: reserved, eviction, CPU manager": {
    kubernetes: {
      kubelet: {
        kubeReserved: { cpu: '100m', pid: '20k' },
        evictionHard: { memoryAvailable: '100Mi', nodeFSAvailable: '5%' },
        cpuManagerPolicy: 'none',
      },
    },
    worker: worker(),
  },
  'pending worker rollouts of both rotations': {
    rotation: {
      certificateAuthorities: {
        lastInitiationTime: '2026-08-01T10:00:00Z',
        pendingWorkersRollouts: [{ name: 'worker-a', lastInitiationTime: '2026-08-02T10:11:12Z' }],
      },
      serviceAccountKey: {
        lastInitiationTime: '2026-08-03T00:00:00Z',
        pendingWorkersRollouts: [{ name: 'other' }],
      },
    },
    worker: worker(),
  },
  'NodeLocalDNS with kube-proxy in IPVS mode': {
    kubernetes: { kubeProxy: { enabled: true, mode: 'IPVS' } },
    systemComponents: { nodeLocalDNS: { enabled: true } },
    worker: worker(),
  },
  'NodeLocalDNS below 1.34': {
    kubernetes: { version: '1.33.2' },
    systemComponents: { nodeLocalDNS: { enabled: true } },
    worker: worker(),
  },
  'no image, volume nor CRI': {
    worker: worker({ machine: { type: 'm5.large' }, volume: undefined, cri: undefined }),
  },
  'an in-place pool': { worker: worker({ updateStrategy: 'ManualInPlaceUpdate' }) },
  'a rolling pool named explicitly': { worker: worker({ updateStrategy: 'AutoRollingUpdate' }) },
};

describe('v1.150.0 OSC keys read from the Shoot, against gardenlet v1.150.0 (oracle names op)', () => {
  useOracle150();

  for (const [name, c] of Object.entries(CASES)) {
    it(name, async () => {
      const kubernetes: Record<string, unknown> = { version: '1.34.1', ...c.kubernetes };
      const raw = {
        metadata: { name: 'bar', namespace: 'garden-foo' },
        spec: {
          kubernetes,
          provider: { type: 'aws', workers: [c.worker] },
          ...(c.systemComponents ? { systemComponents: c.systemComponents } : {}),
        },
        ...(c.rotation ? { status: { credentials: { rotation: c.rotation } } } : {}),
      };
      const shoot = TolerantShoot.Shoot.parse(raw);
      const ours = keyV150(keyV150InputOf(shoot, shoot.spec.provider.workers[0]!));
      const upstream = await oracle150().ask<{ keys: { key: string }[] }>('names', {
        keys: [
          {
            version: kubernetes.version,
            credentialsRotation: c.rotation,
            worker: c.worker,
            nodeLocalDNSEnabled:
              (c.systemComponents?.nodeLocalDNS as { enabled?: boolean })?.enabled === true,
            kubeletConfig: kubernetes.kubelet,
            kubeProxyConfig: kubernetes.kubeProxy,
          },
        ],
      });
      expect(ours).to.equal(upstream.keys[0]!.key);
    });
  }
});
