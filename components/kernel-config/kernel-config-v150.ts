/**
 * The kernel parameters of the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/kernelconfig/component.go):
 * v1.91.4's settings, but the conntrack table size only when kube-proxy is off (v1.141.0), and
 * the protect-kernel-defaults values unless the shoot turns that flag off, for every Kubernetes
 * version (v1.103.0).
 */
import { type ComponentOutput, MODE, plain } from '../component.js';
import {
  BASE_SYSCTLS,
  KERNEL_CONFIG_PATH,
  KERNEL_CONFIG_UNIT,
  PROTECT_KERNEL_DEFAULTS_SYSCTLS,
  sysctlFileContent,
} from './kernel-config.js';

const CONNTRACK_MAX = 'net.netfilter.nf_conntrack_max';

export interface KernelConfigV150Input {
  /** `KubeProxyEnabled(shoot.spec.kubernetes.kubeProxy)`: true only when `enabled: true` is set. */
  readonly kubeProxyEnabled: boolean;
  /** The kubelet's `protectKernelDefaults` as the shoot sets it, if at all. */
  readonly protectKernelDefaults?: boolean;
  /** The pool's own sysctls, over everything else. */
  readonly sysctls: Readonly<Record<string, string>>;
}

export function kernelConfigContentV150(input: KernelConfigV150Input): string {
  const { [CONNTRACK_MAX]: conntrackMax, ...base } = BASE_SYSCTLS;
  return sysctlFileContent({
    ...base,
    ...(input.kubeProxyEnabled || conntrackMax === undefined ? {} : { [CONNTRACK_MAX]: conntrackMax }),
    ...((input.protectKernelDefaults ?? true) ? PROTECT_KERNEL_DEFAULTS_SYSCTLS : {}),
    ...input.sysctls,
  });
}

export function kernelConfigV150(input: KernelConfigV150Input): ComponentOutput {
  return {
    units: [{ name: KERNEL_CONFIG_UNIT, command: 'restart', enable: true, filePaths: [KERNEL_CONFIG_PATH] }],
    files: [
      { path: KERNEL_CONFIG_PATH, permissions: MODE.rw, content: plain(kernelConfigContentV150(input)) },
    ],
  };
}
