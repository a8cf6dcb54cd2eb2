/**
 * The Gardener release whose node-configuration contract is rendered. v1.91.4 and v1.150.0 exclude
 * each other (no shared Kubernetes minor, different keys, names and agent configuration), so the
 * contract is chosen per render or per Cluster, never guessed (docs/compatibility.md).
 */
import { ROLLOUT_DOMAIN } from './well-known/rollout.js';

export const GARDENER_VERSIONS = ['v1.91.4', 'v1.150.0'] as const;

export type GardenerVersion = (typeof GARDENER_VERSIONS)[number];

/** The contract every render and every Cluster gets unless told otherwise. */
export const DEFAULT_GARDENER_VERSION: GardenerVersion = 'v1.91.4';

/** On a Cluster: the contract rendered for this shoot, over the controller-manager's default. */
export const GARDENER_VERSION_ANNOTATION = `${ROLLOUT_DOMAIN}/gardener-version`;

export function isGardenerVersion(text: unknown): text is GardenerVersion {
  return (GARDENER_VERSIONS as readonly unknown[]).includes(text);
}

export function unknownGardenerVersionMessage(text: string): string {
  return `unknown Gardener version "${text}" (one of: ${GARDENER_VERSIONS.join(', ')})`;
}

export type GardenerVersionChoice =
  | { ok: true; version: GardenerVersion }
  | { ok: false; detail: string; value: string };

/**
 * The contract of one Cluster: `explicit` (a command-line flag) wins, then the Cluster's
 * annotation, then `fallback` (the controller-manager's `gardenerVersion`, or the default).
 */
export function chooseGardenerVersion(
  annotations: Readonly<Record<string, string>> | null | undefined,
  fallback: GardenerVersion,
  explicit?: GardenerVersion,
): GardenerVersionChoice {
  if (explicit !== undefined) return { ok: true, version: explicit };
  const annotated = annotations?.[GARDENER_VERSION_ANNOTATION];
  if (annotated === undefined) return { ok: true, version: fallback };
  if (isGardenerVersion(annotated)) return { ok: true, version: annotated };
  return { ok: false, value: annotated, detail: unknownGardenerVersionMessage(annotated) };
}
