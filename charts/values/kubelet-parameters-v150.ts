/**
 * The shoot's (or pool's) KubeletConfig mapped to the v1.150.0 kubelet component's parameters
 * (gardener v1.150.0 pkg/component/extensions/operatingsystemconfig/original/components/kubelet.go,
 * `KubeletConfigParametersFromCoreV1beta1KubeletConfig`): v1.91.4's mapping (kubelet-parameters.ts)
 * without `systemReserved`, which v1.150.0's Shoot API no longer has (its decoder drops it), and
 * with the fields added since.
 */
import type { CloudProfile, KubeletConfig } from '../../api/index.js';
import type { KubeletConfigParametersV150 } from '../../components/kubelet/kubelet-configuration-v150.js';
import { kubeletParameters } from './kubelet-parameters.js';

export function kubeletParametersV150(
  config: KubeletConfig | undefined,
  machineType: string,
  cloudProfile: CloudProfile,
): KubeletConfigParametersV150 {
  const common = kubeletParameters(config, machineType, cloudProfile);
  delete common.systemReserved;
  const c = config ?? {};
  return {
    ...common,
    maxParallelImagePulls: c.maxParallelImagePulls,
    singleProcessOOMKill: c.singleProcessOOMKill,
    imagePullCredentialsVerificationPolicy: c.imagePullCredentialsVerificationPolicy,
    preloadedImagesVerificationAllowlist: c.preloadedImagesVerificationAllowlist,
  };
}
