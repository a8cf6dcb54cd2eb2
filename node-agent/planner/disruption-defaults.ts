/**
 * What a change of each file the renderer writes needs, by default (docs/least-disruption.md has
 * the same table with each reason). A file no rule names takes today's action: its units (those
 * listing it in filePaths) restart, and a file no unit lists takes none.
 */
import { PATH, UNIT } from '../../api/index.js';
import type { PathRule } from './disruption-policy.js';

export const JOURNALD_UNIT = 'systemd-journald.service';
export const SYSCTL_UNIT = 'systemd-sysctl.service';

export const DEFAULT_PATH_RULES: readonly PathRule[] = [
  {
    path: '/etc/systemd/journald.conf',
    action: 'Restart',
    units: [JOURNALD_UNIT],
    reason: 'journald reads its configuration only when it starts',
  },
  {
    path: '/etc/systemd/journald.conf.d/*.conf',
    action: 'Restart',
    units: [JOURNALD_UNIT],
    reason: 'journald reads its configuration only when it starts',
  },
  {
    path: '/etc/sysctl.d/*.conf',
    action: 'Restart',
    units: [SYSCTL_UNIT],
    reason: 'systemd-sysctl writes sysctl.d into the kernel when it runs',
  },
  {
    path: PATH.kubeletConfig,
    action: 'Restart',
    reason: 'the kubelet reads its config file only when it starts',
  },
  {
    path: '/etc/containerd/config.toml',
    action: 'Restart',
    units: [UNIT.containerd],
    reason: 'containerd reads config.toml only when it starts; running containers keep running',
  },
  {
    path: '/etc/containerd/conf.d/*.toml',
    action: 'Restart',
    units: [UNIT.containerd],
    reason: 'containerd reads its imported config only when it starts; running containers keep running',
  },
  {
    path: '/etc/containerd/certs.d/**',
    action: 'None',
    reason: "containerd reads a registry's hosts.toml on every pull",
  },
  {
    path: '/var/lib/ca-certificates-local/*.crt',
    action: 'Restart',
    reason: 'the update command rebuilds the trust store from it',
  },
  {
    path: '/etc/pki/trust/anchors/*.pem',
    action: 'Restart',
    reason: 'the update command rebuilds the trust store from it',
  },
];
