/**
 * sshd-ensurer in the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/sshdensurer): the scripts
 * loop every 15 s and mask (or unmask) sshd, killing orphaned sessions, and the unit restarts
 * after 5 s instead of 15 s. The templates have no actions, so their text is the script.
 */
import { b64, type ComponentContext, type ComponentOutput, MODE } from '../component.js';
import { SSHD_ENSURER_SCRIPT_PATH, SSHD_ENSURER_UNIT } from './sshd-ensurer.js';

export const ENABLE_SSHD_SCRIPT_V150 = `#!/bin/bash -eu
set -e

while true; do
    # Unmask and enable sshd service if not enabled
    if ! systemctl is-enabled --quiet sshd.service ; then
        systemctl unmask sshd.service
        # When sshd.service is disabled on gardenlinux the service is deleted
        # On gardenlinux sshd.service is enabled by enabling ssh.service
        if ! systemctl enable sshd.service ; then
            systemctl enable ssh.service
        fi
    fi

    # Start sshd service if not active
    if ! systemctl is-active --quiet sshd.service ; then
        systemctl start sshd.service
    fi

    sleep 15
done
`;

export const DISABLE_SSHD_SCRIPT_V150 = `#!/bin/bash -eu
set -e

while true; do
    # Disable and mask sshd service if not masked
    if [ "$(systemctl is-enabled sshd.service)" != "masked" ] ; then
        systemctl disable sshd.service || true
        # Using the --now flag stops the selected service
        systemctl mask --now sshd.service
    fi

    # Stopping the sshd service with the --now flag does
    # not terminate already established connections
    # Kill all currently established orphaned ssh connections on the host
    pkill -P 1 -x sshd || true

    sleep 15
done
`;

const UNIT_CONTENT_V150 = `[Unit]
Description=Ensure SSHD service is enabled or disabled
DefaultDependencies=no
[Service]
Type=simple
Restart=always
RestartSec=5
ExecStart=${SSHD_ENSURER_SCRIPT_PATH}
[Install]
WantedBy=multi-user.target`;

export function sshdEnsurerV150(ctx: Pick<ComponentContext, 'sshAccessEnabled'>): ComponentOutput {
  return {
    units: [
      {
        name: SSHD_ENSURER_UNIT,
        command: 'start',
        content: UNIT_CONTENT_V150,
        filePaths: [SSHD_ENSURER_SCRIPT_PATH],
      },
    ],
    files: [
      {
        path: SSHD_ENSURER_SCRIPT_PATH,
        permissions: MODE.rwx,
        content: b64(ctx.sshAccessEnabled ? ENABLE_SSHD_SCRIPT_V150 : DISABLE_SSHD_SCRIPT_V150),
      },
    ],
  };
}
