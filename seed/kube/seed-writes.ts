/**
 * The few write patterns the seed controllers use, as gardenlet uses them (create, else merge
 * patch: arrays replaced wholesale, no optimistic lock; create-if-absent for immutable objects;
 * deletes that treat NotFound as done), plus the one thing gardenlet does not do: no write at all
 * when the live object already is what a merge patch would make it (`mergePatchChanges`), so a
 * shoot where nothing changed costs reads only.
 */
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import type { Resource } from '../../runtime/kube/resource.js';

export const FIELD_MANAGER = 'gardener-osc';

interface Named {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Equal as JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);
    const ka = keys(a);
    return ka.length === keys(b).length && ka.every((k) => jsonEqual(a[k], b[k]));
  }
  return a === b;
}

/**
 * Whether a JSON merge patch (RFC 7386) would change `live`: a `null` member removes a field, an
 * object merges, anything else (arrays included) replaces. Pure, for deciding before writing.
 */
export function mergePatchChanges(patch: unknown, live: unknown): boolean {
  if (!isObject(patch)) return !jsonEqual(patch, live);
  const target = isObject(live) ? live : undefined;
  if (!target) return true;
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) {
      if (target[key] !== undefined && target[key] !== null) return true;
    } else if (mergePatchChanges(value, target[key])) return true;
  }
  return false;
}

/** Creates the object, or merge-patches what we render onto the live one; returns the result. */
export async function createOrMergePatch<T extends Named>(
  client: Pick<KubeClient, 'create' | 'mergePatch'>,
  r: Resource,
  object: T,
): Promise<{ object: T; created: boolean }> {
  try {
    return { object: await client.create(r, object), created: true };
  } catch (e) {
    if (!isApiStatus(e, 409)) throw e;
  }
  const ref = { name: object.metadata?.name ?? '', namespace: object.metadata?.namespace };
  return { object: await client.mergePatch<T>(r, ref, object), created: false };
}

/** Immutable objects (checksum-named ManagedResource secrets): an existing one already has this content. */
export async function createIfAbsent(
  client: Pick<KubeClient, 'create'>,
  r: Resource,
  object: Named,
): Promise<boolean> {
  try {
    await client.create(r, object);
    return true;
  } catch (e) {
    if (isApiStatus(e, 409)) return false;
    throw e;
  }
}
