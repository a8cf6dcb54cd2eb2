/**
 * The shoot's (or pool's) KubeletConfig mapped to the kubelet component's parameters (gardener
 * v1.91.4 pkg/component/extensions/operatingsystemconfig/original/components/kubelet.go),
 * including the machine-type eviction defaults (`setDefaultEvictionMemoryAvailable` in gardener
 * v1.91.4 pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go).
 */
import type { CloudProfile, KubeletConfig } from '../../api/index.js';
import type { KubeletConfigParameters } from '../../components/component.js';
import { quantityAsInt64 } from '../../components/node-init/quantity.js';

const EVICTION_KEYS = {
  memoryAvailable: 'memory.available',
  imageFSAvailable: 'imagefs.available',
  imageFSInodesFree: 'imagefs.inodesFree',
  nodeFSAvailable: 'nodefs.available',
  nodeFSInodesFree: 'nodefs.inodesFree',
} as const;

const RESERVED_KEYS = {
  cpu: 'cpu',
  memory: 'memory',
  ephemeralStorage: 'ephemeral-storage',
  pid: 'pid',
} as const;

function mapKeys(
  source: Readonly<Record<string, string | undefined>> | undefined,
  keys: Readonly<Record<string, string>>,
): Record<string, string> | undefined {
  if (!source) return undefined;
  const out: Record<string, string> = {};
  for (const [from, to] of Object.entries(keys)) {
    const value = source[from];
    if (value !== undefined) out[to] = value;
  }
  return out;
}

const EIGHT_GI = 8 * 1024 ** 3;

/**
 * Memory eviction defaults by machine type. As upstream, they apply only where the user configured
 * some eviction signal (upstream writes them into a throw-away map otherwise).
 */
function applyMachineTypeEviction(
  p: KubeletConfigParameters,
  machineType: string,
  cloudProfile: CloudProfile,
): void {
  const type = cloudProfile.spec.machineTypes.find((m) => m.name === machineType);
  let hard = '100Mi';
  let soft = '200Mi';
  if (type) {
    const memory = quantityAsInt64(type.memory) ?? 0;
    [hard, soft] = memory > EIGHT_GI ? ['1Gi', '1.5Gi'] : ['5%', '10%'];
  }
  if (p.evictionHard && p.evictionHard['memory.available'] === undefined)
    p.evictionHard['memory.available'] = hard;
  if (p.evictionSoft && p.evictionSoft['memory.available'] === undefined)
    p.evictionSoft['memory.available'] = soft;
}

export function kubeletParameters(
  config: KubeletConfig | undefined,
  machineType: string,
  cloudProfile: CloudProfile,
): KubeletConfigParameters {
  const c = config ?? {};
  const p: KubeletConfigParameters = {
    containerLogMaxFiles: c.containerLogMaxFiles,
    containerLogMaxSize: c.containerLogMaxSize,
    cpuCFSQuota: c.cpuCFSQuota,
    cpuManagerPolicy: c.cpuManagerPolicy,
    evictionHard: mapKeys(c.evictionHard, EVICTION_KEYS),
    evictionSoft: mapKeys(c.evictionSoft, EVICTION_KEYS),
    evictionSoftGracePeriod: mapKeys(c.evictionSoftGracePeriod, EVICTION_KEYS),
    evictionMinimumReclaim: mapKeys(c.evictionMinimumReclaim, EVICTION_KEYS),
    evictionMaxPodGracePeriod: c.evictionMaxPodGracePeriod,
    evictionPressureTransitionPeriod: c.evictionPressureTransitionPeriod,
    failSwapOn: c.failSwapOn,
    featureGates: c.featureGates,
    imageGCHighThresholdPercent: c.imageGCHighThresholdPercent,
    imageGCLowThresholdPercent: c.imageGCLowThresholdPercent,
    kubeReserved: mapKeys(c.kubeReserved, RESERVED_KEYS),
    systemReserved: mapKeys(c.systemReserved, RESERVED_KEYS),
    maxPods: c.maxPods,
    podPidsLimit: c.podPidsLimit,
    protectKernelDefaults: c.protectKernelDefaults,
    seccompDefault: c.seccompDefault,
    serializeImagePulls: c.serializeImagePulls,
    registryPullQPS: c.registryPullQPS,
    registryBurst: c.registryBurst,
    streamingConnectionIdleTimeout: c.streamingConnectionIdleTimeout,
    memorySwap: c.memorySwap,
  };
  applyMachineTypeEviction(p, machineType, cloudProfile);
  return p;
}
