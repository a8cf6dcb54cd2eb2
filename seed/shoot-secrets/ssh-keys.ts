/**
 * The SSH public keys gardenlet puts on every node (gardener v1.91.4
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go): the secrets manager's `ssh-keypair`
 * secrets (labelled `name=ssh-keypair`, `managed-by=secrets-manager`,
 * `manager-identity=gardenlet`), key `id_rsa.pub`. The newest is the current keypair, the next
 * newest the old one kept after a rotation; anything older is ignored. Order and tie-break as in
 * newest-first.ts.
 *
 * "None found" is an error here; whether it matters (SSH access enabled) is the caller's decision.
 * The input may be any list of secrets: secrets without the exact labels are ignored.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { DATA_KEY } from '../../api/well-known/names.js';
import { hasLabels, SSH_KEYPAIR_LABELS, SSH_KEYPAIR_SELECTOR } from './label-selectors.js';
import { newestFirst } from './newest-first.js';
import { secretText } from './secret-data.js';

export type SshPublicKeysSelection =
  | {
      ok: true;
      /** `[current]` or `[current, old]`, each exactly as stored in `id_rsa.pub`. */
      keys: string[];
      /** The secrets they came from, in the same order. */
      secretNames: string[];
    }
  | { ok: false; reason: string };

export function selectSshPublicKeys(secrets: readonly V1Secret[]): SshPublicKeysSelection {
  const chosen = newestFirst(secrets.filter((secret) => hasLabels(secret, SSH_KEYPAIR_LABELS))).slice(0, 2);
  if (chosen.length === 0) {
    return { ok: false, reason: `SSH keypair not found: no secret labelled ${SSH_KEYPAIR_SELECTOR}` };
  }
  const keys: string[] = [];
  for (const [index, secret] of chosen.entries()) {
    const key = secretText(secret, DATA_KEY.sshPublicKey);
    if (!key.ok)
      return { ok: false, reason: `${index === 0 ? 'current' : 'old'} SSH keypair: ${key.reason}` };
    keys.push(key.text);
  }
  return { ok: true, keys, secretNames: chosen.map((secret) => secret.metadata?.name ?? '') };
}
