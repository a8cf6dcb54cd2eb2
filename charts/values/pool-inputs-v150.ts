/**
 * What gardenlet v1.150.0 reads from the Shoot for one worker pool's OSC key and kubelet unit:
 * `calculateKeyForValues` (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go) with the values the
 * botanist sets (gardener v1.150.0 pkg/gardenlet/operation/botanist/operatingsystemconfig.go:
 * shoot kubelet config, kube-proxy config, NodeLocalDNS, `status.credentials.rotation`,
 * kube-controller-manager's `nodeMonitorGracePeriod`). A field the Shoot lacks is Go's zero value.
 */
import {
  type KeyV150Input,
  NANOS_PER_SECOND,
  parseGoDuration,
  type Shoot,
  type Worker,
} from '../../api/index.js';

/**
 * The API server's default for kube-controller-manager's `nodeMonitorGracePeriod` (gardener
 * pkg/apis v1.150.0 core/v1beta1/defaults_shoot.go), which gardenlet dereferences unchecked.
 */
export const DEFAULT_NODE_MONITOR_GRACE_PERIOD = '40s';

/** `CalculateEffectiveKubernetesVersion`: the worker's own version, else the shoot's. */
export function effectiveKubernetesVersion(shoot: Shoot, worker: Worker): string {
  return worker.kubernetes?.version ?? shoot.spec.kubernetes.version;
}

/**
 * `CalculateEffectiveKubeletConfiguration`: the worker's kubelet config as a whole when it has
 * one, else the shoot's; the two are never merged.
 */
export function effectiveKubeletConfig(shoot: Shoot, worker: Worker) {
  return worker.kubernetes?.kubelet ?? shoot.spec.kubernetes.kubelet;
}

/** The inputs of the pool's v1.150.0 OSC key (`keyV150`), read from the Shoot. */
export function keyV150InputOf(shoot: Shoot, worker: Worker): KeyV150Input {
  const kubelet = effectiveKubeletConfig(shoot, worker);
  const image = worker.machine.image;
  const rotation = shoot.status?.credentials?.rotation;
  return {
    pool: worker.name,
    kubernetesVersion: effectiveKubernetesVersion(shoot, worker),
    machineType: worker.machine.type,
    ...(image ? { image: { name: image.name, version: image.version } } : {}),
    ...(worker.volume ? { volume: { size: worker.volume.size, type: worker.volume.type } } : {}),
    ...(worker.cri ? { criName: worker.cri.name } : {}),
    ...(worker.updateStrategy !== undefined ? { updateStrategy: worker.updateStrategy } : {}),
    ...(rotation
      ? {
          credentialsRotation: {
            certificateAuthorities: rotation.certificateAuthorities,
            serviceAccountKey: rotation.serviceAccountKey,
          },
        }
      : {}),
    nodeLocalDnsEnabled: shoot.spec.systemComponents?.nodeLocalDNS?.enabled === true,
    ...(shoot.spec.kubernetes.kubeProxy ? { kubeProxy: shoot.spec.kubernetes.kubeProxy } : {}),
    ...(kubelet
      ? {
          kubelet: {
            kubeReserved: kubelet.kubeReserved,
            evictionHard: kubelet.evictionHard,
            cpuManagerPolicy: kubelet.cpuManagerPolicy,
          },
        }
      : {}),
  };
}

/**
 * kube-controller-manager's `nodeMonitorGracePeriod` in seconds (Go's `Duration.Seconds()`, a
 * float), from which the v1.150.0 kubelet unit derives its HTTP/2 timeouts.
 */
export function nodeMonitorGracePeriodSeconds(shoot: Shoot): number {
  const text =
    shoot.spec.kubernetes.kubeControllerManager?.nodeMonitorGracePeriod ?? DEFAULT_NODE_MONITOR_GRACE_PERIOD;
  return parseGoDuration(text) / NANOS_PER_SECOND;
}
