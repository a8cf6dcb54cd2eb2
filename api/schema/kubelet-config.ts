/**
 * The shoot's KubeletConfig (core.gardener.cloud/v1beta1), the fields the renderer maps (gardener
 * v1.91.4 pkg/component/extensions/operatingsystemconfig/original/components/kubelet.go).
 */
import * as z from 'zod';
import { objectOf, type Strictness } from './strictness.js';

/** resource.Quantity accepts JSON numbers and strings; keep its text. */
export const QuantityText = z.union([z.string(), z.number()]).transform(String);

export function kubeletConfigSchema(mode: Strictness) {
  const o = <S extends z.ZodRawShape>(shape: S) => objectOf(mode, shape);
  const eviction = <T extends z.ZodType>(value: T) =>
    o({
      memoryAvailable: value.optional(),
      imageFSAvailable: value.optional(),
      imageFSInodesFree: value.optional(),
      nodeFSAvailable: value.optional(),
      nodeFSInodesFree: value.optional(),
    });
  const reserved = o({
    cpu: QuantityText.optional(),
    memory: QuantityText.optional(),
    ephemeralStorage: QuantityText.optional(),
    pid: QuantityText.optional(),
  });
  return o({
    containerLogMaxSize: QuantityText.optional(),
    containerLogMaxFiles: z.number().int().optional(),
    cpuCFSQuota: z.boolean().optional(),
    cpuManagerPolicy: z.string().optional(),
    evictionHard: eviction(z.string()).optional(),
    evictionSoft: eviction(z.string()).optional(),
    evictionSoftGracePeriod: eviction(z.string()).optional(),
    evictionMinimumReclaim: eviction(QuantityText).optional(),
    evictionMaxPodGracePeriod: z.number().int().optional(),
    evictionPressureTransitionPeriod: z.string().optional(),
    failSwapOn: z.boolean().optional(),
    featureGates: z.record(z.string(), z.boolean()).optional(),
    imageGCHighThresholdPercent: z.number().int().optional(),
    imageGCLowThresholdPercent: z.number().int().optional(),
    kubeReserved: reserved.optional(),
    systemReserved: reserved.optional(),
    maxPods: z.number().int().optional(),
    podPidsLimit: z.number().int().optional(),
    protectKernelDefaults: z.boolean().optional(),
    seccompDefault: z.boolean().optional(),
    serializeImagePulls: z.boolean().optional(),
    registryPullQPS: z.number().int().optional(),
    registryBurst: z.number().int().optional(),
    streamingConnectionIdleTimeout: z.string().optional(),
    memorySwap: o({ swapBehavior: z.string().optional() }).optional(),
    // read by the v1.150.0 contract only (gardener v1.150.0
    // pkg/component/extensions/operatingsystemconfig/original/components/kubelet.go)
    maxParallelImagePulls: z.number().int().optional(),
    singleProcessOOMKill: z.boolean().optional(),
    imagePullCredentialsVerificationPolicy: z.string().optional(),
    preloadedImagesVerificationAllowlist: z.array(z.string()).optional(),
  });
}

export type KubeletConfig = z.output<ReturnType<typeof kubeletConfigSchema>>;
