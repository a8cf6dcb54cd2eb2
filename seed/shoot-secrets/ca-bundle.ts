/**
 * The cluster and kubelet CA bundles, as gardenlet's secrets manager keeps them in the shoot
 * namespace (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go,
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go): secrets labelled
 * `managed-by=secrets-manager`, `manager-identity=gardenlet`, `bundle-for=ca` (resp. `ca-kubelet`),
 * the PEM bundle under `bundle.crt`. During a CA rotation, or briefly after one until the secrets
 * manager cleans up, more than one bundle secret exists: the newest wins (see newest-first.ts for
 * the order and its tie-break) and `rotating` tells the caller to requeue until only one is left.
 * The winning secret's name is what the legacy downloader references as its CA secret.
 *
 * The input may be any list of secrets (e.g. everything listed with SECRETS_MANAGER_SELECTOR):
 * secrets without the exact labels are ignored.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { DATA_KEY } from '../../api/well-known/names.js';
import { type CaBundleFor, caBundleLabels, hasLabels, labelSelector } from './label-selectors.js';
import { newestFirst } from './newest-first.js';
import { secretText } from './secret-data.js';

export type CaBundleSelection =
  | {
      ok: true;
      /** The PEM text of `bundle.crt`, exactly as stored. */
      bundle: string;
      /** Name of the secret it came from. */
      secretName: string;
      /** More than one bundle secret exists: the caller requeues until the rotation settles. */
      rotating: boolean;
    }
  | { ok: false; reason: string };

export function selectCaBundle(secrets: readonly V1Secret[], bundleFor: CaBundleFor): CaBundleSelection {
  const labels = caBundleLabels(bundleFor);
  const candidates = newestFirst(secrets.filter((secret) => hasLabels(secret, labels)));
  const newest = candidates[0];
  if (!newest) {
    return {
      ok: false,
      reason: `CA bundle for "${bundleFor}" not found: no secret labelled ${labelSelector(labels)}`,
    };
  }
  const bundle = secretText(newest, DATA_KEY.bundle);
  if (!bundle.ok) return { ok: false, reason: `CA bundle for "${bundleFor}": ${bundle.reason}` };
  return {
    ok: true,
    bundle: bundle.text,
    secretName: newest.metadata?.name ?? '',
    rotating: candidates.length > 1,
  };
}
