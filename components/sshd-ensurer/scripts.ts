/**
 * The two scripts behind sshd-ensurer.service (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/sshdensurer/component.go). The
 * unit restarts the script every 15 s, so each run is one idempotent check: whatever a user or the
 * OS changes, SSH converges back to what the shoot's `sshAccess` says.
 */

const PRELUDE = `#!/bin/bash
set -o errexit
set -o nounset
set -o pipefail
`;

export function enableSshdScript(): string {
  return `${PRELUDE}
# A masked sshd stays masked: masking is an operator's decision, as for upstream's script.
if ! systemctl is-enabled --quiet sshd.service; then
  # Some distributions (e.g. Garden Linux) drop the sshd.service alias while it is disabled; enabling
  # ssh.service brings it back.
  if ! systemctl enable sshd.service; then
    systemctl enable ssh.service
  fi
fi

if ! systemctl is-active --quiet sshd.service; then
  systemctl start sshd.service
fi
`;
}

export function disableSshdScript(): string {
  return `${PRELUDE}
if systemctl is-enabled --quiet sshd.service; then
  systemctl disable sshd.service
fi

if systemctl is-active --quiet sshd.service; then
  systemctl stop sshd.service
fi

# Stopping the service keeps established sessions open; end them too. No sshd left is fine.
pkill -x sshd || true
`;
}
