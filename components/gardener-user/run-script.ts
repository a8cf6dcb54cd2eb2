/**
 * `/var/lib/gardener-user/run.sh` (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/gardeneruser/component.go):
 * the `gardener` user with the shoot's SSH keys and password-less sudo. Runs at every boot and
 * whenever the keys change; each step is idempotent.
 */
import { shellQuote } from '../shell-quote.js';

export interface GardenerUserScriptInput {
  /** The keys the OSC delivers, one per line. */
  readonly authorizedKeysPath: string;
  /** Where older Gardener versions put a single key; removed so no stale key lingers. */
  readonly legacyPublicKeyPath: string;
}

export function gardenerUserScript(input: GardenerUserScriptInput): string {
  const q = shellQuote;
  return `#!/bin/bash
set -o errexit
set -o nounset
set -o pipefail

readonly user=gardener
readonly ssh_dir=/home/gardener/.ssh
readonly sudoers_file=/etc/sudoers.d/99-gardener-user
readonly authorized_keys_source=${q(input.authorizedKeysPath)}
readonly legacy_public_key=${q(input.legacyPublicKeyPath)}

if ! id "$user" >/dev/null 2>&1; then
  useradd "$user" -mU
fi

# sshd (StrictModes) ignores keys that others can write, so directory and file belong to the user.
install -d -m 0700 -o "$user" -g "$user" "$ssh_dir"
install -m 0600 -o "$user" -g "$user" "$authorized_keys_source" "$ssh_dir/authorized_keys"

rm -f "$legacy_public_key"

# Written once and left alone afterwards, as an operator may have tightened it.
if [[ ! -f "$sudoers_file" ]]; then
  mkdir -p "$(dirname "$sudoers_file")"
  echo "$user ALL=(ALL) NOPASSWD:ALL" >"$sudoers_file.tmp"
  chmod 0440 "$sudoers_file.tmp"
  mv -f "$sudoers_file.tmp" "$sudoers_file"
fi
`;
}
