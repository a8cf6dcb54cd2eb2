/**
 * The kubelet's command line flags (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/kubelet/cliflags.go), in
 * gardenlet's order.
 */
import { formatSemVer, isAtLeastMinor, LABEL, PATH, type SemVer } from '../../api/index.js';
import { isAllowedForKubelet } from './kubelet-labels.js';

export interface KubeletFlagsInput {
  readonly kubernetesVersion: SemVer;
  readonly criName: string;
  readonly nodeLabels: Readonly<Record<string, string>>;
  readonly preferIPv6: boolean;
}

export function kubeletCliFlags(input: KubeletFlagsInput): string[] {
  const flags = [
    `--bootstrap-kubeconfig=${PATH.kubeletBootstrapKubeconfig}`,
    `--config=${PATH.kubeletConfig}`,
    `--kubeconfig=${PATH.kubeletKubeconfig}`,
    `--node-labels=${LABEL.kubernetesVersion}=${formatSemVer(input.kubernetesVersion)}`,
  ];
  const labelFlags = Object.entries(input.nodeLabels)
    .filter(([key]) => isAllowedForKubelet(key))
    .map(([key, value]) => `--node-labels=${key}=${value}`)
    .sort();
  flags.push(...labelFlags);
  if (input.criName === 'containerd') {
    flags.push(
      '--container-runtime-endpoint=unix:///run/containerd/containerd.sock',
      '--runtime-cgroups=/system.slice/containerd.service',
    );
    // Kubernetes 1.27 removed --container-runtime; before, it had to say "remote".
    if (!isAtLeastMinor(input.kubernetesVersion, 1, 27)) flags.push('--container-runtime=remote');
  }
  flags.push('--v=2');
  if (input.preferIPv6) flags.push('--node-ip="::"');
  return flags;
}
