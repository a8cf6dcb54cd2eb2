/**
 * The label selectors the seed lookups list secrets with (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go,
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go): gardenlet's secrets manager labels
 * every secret it owns `managed-by=secrets-manager,manager-identity=gardenlet`; CA bundles add
 * `bundle-for=<ca name>`, SSH keypairs `name=ssh-keypair`.
 *
 * The selection functions filter with the same label sets (`hasLabels`), so a caller may list once
 * with `SECRETS_MANAGER_SELECTOR` and pass the whole list to every lookup, or list per lookup with
 * the narrower selectors. Kubernetes RBAC cannot restrict `list`/`watch` by label (only `get` by
 * resource name), so these selectors narrow what is transferred and cached, not what is permitted.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { LABEL, LABEL_VALUE } from '../../api/well-known/labels.js';

export type CaBundleFor = typeof LABEL_VALUE.bundleForCa | typeof LABEL_VALUE.bundleForKubeletCa;

export type Labels = Readonly<Record<string, string>>;

/** The labels of every secret gardenlet's secrets manager owns. */
export const SECRETS_MANAGER_LABELS: Labels = {
  [LABEL.secretsManagedBy]: LABEL_VALUE.secretsManager,
  [LABEL.secretsManagerIdentity]: LABEL_VALUE.gardenlet,
};

/** The labels of the CA bundle secrets for `ca` (cluster CA) or `ca-kubelet` (kubelet CA). */
export function caBundleLabels(bundleFor: CaBundleFor): Labels {
  return { ...SECRETS_MANAGER_LABELS, [LABEL.secretsBundleFor]: bundleFor };
}

/** The labels of the SSH keypair secrets (current and old). */
export const SSH_KEYPAIR_LABELS: Labels = {
  ...SECRETS_MANAGER_LABELS,
  [LABEL.secretsName]: LABEL_VALUE.sshKeypair,
};

/** `k1=v1,k2=v2` with keys sorted byte-wise, so the same set always gives the same string. */
export function labelSelector(labels: Labels): string {
  return Object.keys(labels)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((key) => `${key}=${labels[key]}`)
    .join(',');
}

/** `managed-by=secrets-manager,manager-identity=gardenlet`: one list that serves every lookup. */
export const SECRETS_MANAGER_SELECTOR = labelSelector(SECRETS_MANAGER_LABELS);

/** `bundle-for=ca,managed-by=secrets-manager,manager-identity=gardenlet`. */
export const CLUSTER_CA_BUNDLE_SELECTOR = labelSelector(caBundleLabels(LABEL_VALUE.bundleForCa));

/** `bundle-for=ca-kubelet,managed-by=secrets-manager,manager-identity=gardenlet`. */
export const KUBELET_CA_BUNDLE_SELECTOR = labelSelector(caBundleLabels(LABEL_VALUE.bundleForKubeletCa));

/** `managed-by=secrets-manager,manager-identity=gardenlet,name=ssh-keypair`. */
export const SSH_KEYPAIR_SELECTOR = labelSelector(SSH_KEYPAIR_LABELS);

/** Whether the secret carries every one of the labels with exactly that value. */
export function hasLabels(secret: V1Secret, labels: Labels): boolean {
  const actual = secret.metadata?.labels ?? {};
  return Object.entries(labels).every(([key, value]) => Object.hasOwn(actual, key) && actual[key] === value);
}
