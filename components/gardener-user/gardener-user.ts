/**
 * The `gardener` user operators log in as over SSH (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/gardeneruser/component.go).
 * Only rendered when SSH access is enabled; without it the node agent removes the unit and files of
 * an earlier OSC.
 */
import { b64, type Component, MODE, NO_OUTPUT } from '../component.js';
import { gardenerUserScript } from './run-script.js';

export const GARDENER_USER_PATH = {
  authorizedKeys: '/var/lib/gardener-user-authorized-keys',
  script: '/var/lib/gardener-user/run.sh',
  legacyPublicKey: '/var/lib/gardener-user-ssh.key',
} as const;

export const GARDENER_USER_UNIT = 'gardener-user.service';

const UNIT_CONTENT = [
  '[Unit]',
  'Description=Configure gardener user',
  'After=sshd.service',
  '[Service]',
  'Restart=on-failure',
  'EnvironmentFile=/etc/environment',
  `ExecStart=${GARDENER_USER_PATH.script}`,
  '',
].join('\n');

export const gardenerUser: Component = (ctx) => {
  if (!ctx.sshAccessEnabled) return NO_OUTPUT;
  return {
    // Enabled but no command and no filePaths, as upstream (all part of the OSC checksum).
    units: [{ name: GARDENER_USER_UNIT, enable: true, content: UNIT_CONTENT }],
    files: [
      {
        path: GARDENER_USER_PATH.authorizedKeys,
        permissions: MODE.rw,
        content: b64(ctx.sshPublicKeys.join('\n')),
      },
      {
        path: GARDENER_USER_PATH.script,
        permissions: MODE.rwx,
        content: b64(
          gardenerUserScript({
            authorizedKeysPath: GARDENER_USER_PATH.authorizedKeys,
            legacyPublicKeyPath: GARDENER_USER_PATH.legacyPublicKey,
          }),
        ),
      },
    ],
  };
};
