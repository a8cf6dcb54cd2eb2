/**
 * Mounts the kubelet data volume on /var/lib when the pool has one (seed-side §3.3). The unit has
 * no command and no enable flag: upstream sets neither, and the OSC's checksum depends on it.
 */
import type { Component } from '../component.js';
import { NO_OUTPUT } from '../component.js';

export const VAR_LIB_MOUNT_UNIT = 'var-lib.mount';

/**
 * The label and file system are upstream's fixed values; the volume's name only switches the
 * mount on (the OS extension formats the device with this label).
 */
const CONTENT = [
  '[Unit]',
  'Description=mount /var/lib on kubelet data device',
  'Before=kubelet.service',
  '[Mount]',
  'What=/dev/disk/by-label/kubeletdev',
  'Where=/var/lib',
  'Type=xfs',
  'Options=defaults',
  '[Install]',
  'WantedBy=local-fs.target',
].join('\n');

export const varLibMount: Component = (ctx) =>
  ctx.kubeletDataVolumeName === undefined
    ? NO_OUTPUT
    : { units: [{ name: VAR_LIB_MOUNT_UNIT, content: CONTENT }], files: [] };
