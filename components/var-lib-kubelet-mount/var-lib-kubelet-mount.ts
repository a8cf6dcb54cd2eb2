/**
 * Mounts the kubelet data volume on /var/lib/kubelet when the pool has one (v1.91.4's
 * var-lib-kubelet-mount; v1.91.0–.2 mounted it on /var/lib). The node agent's bootstrap formats the
 * volume with the label KUBEDEV (api/scripts/format-kubelet-data-volume.ts); this unit mounts it on
 * every boot after that. No command and no enable flag: upstream sets neither, and the OSC's
 * checksum depends on it.
 */

import { KUBELET_DATA_VOLUME_LABEL } from '../../api/index.js';
import type { Component, ComponentOutput } from '../component.js';
import { NO_OUTPUT } from '../component.js';

export const VAR_LIB_KUBELET_MOUNT_UNIT = 'var-lib-kubelet.mount';

const CONTENT = [
  '[Unit]',
  'Description=mount /var/lib/kubelet on kubelet data device',
  'Before=kubelet.service',
  '[Mount]',
  `What=/dev/disk/by-label/${KUBELET_DATA_VOLUME_LABEL}`,
  'Where=/var/lib/kubelet',
  'Type=ext4',
  'Options=defaults,prjquota,errors=remount-ro',
  '[Install]',
  'WantedBy=local-fs.target',
].join('\n');

/** The mount unit when the pool has a kubelet data volume; the same in v1.91.4 and v1.150.0. */
export function varLibKubeletMountUnit(kubeletDataVolumeName: string | undefined): ComponentOutput {
  return kubeletDataVolumeName === undefined
    ? NO_OUTPUT
    : { units: [{ name: VAR_LIB_KUBELET_MOUNT_UNIT, content: CONTENT }], files: [] };
}

export const varLibKubeletMount: Component = (ctx) => varLibKubeletMountUnit(ctx.kubeletDataVolumeName);
