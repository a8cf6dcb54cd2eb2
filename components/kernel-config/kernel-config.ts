/**
 * Kernel parameters every node needs (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/kernelconfig/component.go),
 * applied by restarting systemd-sysctl. With kubelet's protect-kernel-defaults the kubelet refuses
 * to start unless the kernel already has the values it would otherwise set itself, so those are
 * added here whenever that flag is on.
 */
import { isAtLeastMinor } from '../../api/index.js';
import { type Component, type ComponentContext, MODE, plain } from '../component.js';

export const KERNEL_CONFIG_PATH = '/etc/sysctl.d/99-k8s-general.conf';
export const KERNEL_CONFIG_UNIT = 'systemd-sysctl.service';

export const BASE_SYSCTLS: Readonly<Record<string, string>> = Object.freeze({
  'vm.max_map_count': '135217728',
  'kernel.softlockup_panic': '1',
  'kernel.softlockup_all_cpu_backtrace': '1',
  'net.core.somaxconn': '32768',
  'net.core.rmem_max': '16777216',
  'net.core.wmem_max': '16777216',
  'net.ipv4.conf.all.forwarding': '1',
  'net.ipv4.conf.default.forwarding': '1',
  'net.ipv6.conf.all.forwarding': '1',
  'net.ipv6.conf.default.forwarding': '1',
  'net.ipv4.conf.default.log_martians': '1',
  'net.ipv4.tcp_wmem': '4096 12582912 16777216',
  'net.ipv4.tcp_rmem': '4096 12582912 16777216',
  'net.ipv4.tcp_retries2': '8',
  'net.ipv4.tcp_max_syn_backlog': '8096',
  'net.ipv4.tcp_slow_start_after_idle': '0',
  'net.ipv4.tcp_tw_reuse': '1',
  'net.ipv4.ip_local_port_range': '32768 65535',
  'net.core.netdev_max_backlog': '16384',
  'fs.file-max': '20000000',
  'fs.inotify.max_user_instances': '8192',
  'fs.inotify.max_user_watches': '524288',
  'fs.aio-max-nr': '262144',
  'vm.memory_failure_early_kill': '1',
  'net.netfilter.nf_conntrack_max': '1048576',
});

/**
 * The values kubelet checks under protect-kernel-defaults. The keys keep upstream's slash form
 * (sysctl.d accepts both separators), because the file content is part of the OSC checksum.
 */
export const PROTECT_KERNEL_DEFAULTS_SYSCTLS: Readonly<Record<string, string>> = Object.freeze({
  'vm/overcommit_memory': '1',
  'vm/panic_on_oom': '0',
  'kernel/panic_on_oops': '1',
  'kernel/panic': '10',
  'kernel/keys/root_maxkeys': '1000000',
  'kernel/keys/root_maxbytes': '25000000',
});

/**
 * The kubelet default (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/kubelet/config.go): explicit
 * value, else on from Kubernetes 1.26.
 */
export function protectKernelDefaults(ctx: ComponentContext): boolean {
  return ctx.kubeletConfigParameters.protectKernelDefaults ?? isAtLeastMinor(ctx.kubernetesVersion, 1, 26);
}

/** One `key = value` per line: a line break inside either would smuggle in another setting. */
function checkedLine(key: string, value: string): string {
  if (/[\r\n\0]/.test(key) || /[\r\n\0]/.test(value))
    throw new Error(`sysctl ${JSON.stringify(key)}: key and value must be single-line`);
  return `${key} = ${value}\n`;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function kernelConfigContent(ctx: ComponentContext): string {
  const settings: Record<string, string> = {
    ...BASE_SYSCTLS,
    ...(protectKernelDefaults(ctx) ? PROTECT_KERNEL_DEFAULTS_SYSCTLS : {}),
    ...ctx.sysctls,
  };
  return sysctlFileContent(settings);
}

/** The settings as sysctl.d lines, `key = value`, in byte order of the keys (Go's slices.Sort). */
export function sysctlFileContent(settings: Readonly<Record<string, string>>): string {
  return Object.keys(settings)
    .sort(byteOrder)
    .map((key) => checkedLine(key, settings[key]!))
    .join('');
}

export const kernelConfig: Component = (ctx) => ({
  units: [{ name: KERNEL_CONFIG_UNIT, command: 'restart', enable: true, filePaths: [KERNEL_CONFIG_PATH] }],
  files: [{ path: KERNEL_CONFIG_PATH, permissions: MODE.rw, content: plain(kernelConfigContent(ctx)) }],
});
