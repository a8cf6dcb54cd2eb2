/**
 * Keeps sshd enabled or disabled as the shoot's SSH access says (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/sshdensurer/component.go).
 * Always part of the reconcile OSC: turning SSH off must actively stop a running sshd.
 */
import { b64, type Component, MODE } from '../component.js';
import { disableSshdScript, enableSshdScript } from './scripts.js';

export const SSHD_ENSURER_SCRIPT_PATH = '/var/lib/sshd-ensurer/run.sh';
export const SSHD_ENSURER_UNIT = 'sshd-ensurer.service';

const UNIT_CONTENT = [
  '[Unit]',
  'Description=Ensure SSHD service is enabled or disabled',
  'DefaultDependencies=no',
  '[Service]',
  'Type=simple',
  'Restart=always',
  'RestartSec=15',
  `ExecStart=${SSHD_ENSURER_SCRIPT_PATH}`,
  '[Install]',
  'WantedBy=multi-user.target',
].join('\n');

export const sshdEnsurer: Component = (ctx) => ({
  // No enable flag, as upstream (it is part of the OSC checksum).
  units: [
    {
      name: SSHD_ENSURER_UNIT,
      command: 'start',
      content: UNIT_CONTENT,
      filePaths: [SSHD_ENSURER_SCRIPT_PATH],
    },
  ],
  files: [
    {
      path: SSHD_ENSURER_SCRIPT_PATH,
      permissions: MODE.rwx,
      content: b64(ctx.sshAccessEnabled ? enableSshdScript() : disableSshdScript()),
    },
  ],
});
