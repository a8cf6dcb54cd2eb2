/**
 * The few write patterns the seed controllers use, as gardenlet uses them: get-and-create-or-
 * merge-patch (arrays replaced wholesale, no optimistic lock), create-if-absent for immutable
 * objects, and deletes that treat NotFound as done.
 */

import { type KubernetesObject, type KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import { isApiStatus } from '../../runtime/kube/api-status.js';

export const FIELD_MANAGER = 'gardener-osc';

export async function readOrUndefined<T extends KubernetesObject>(
  api: KubernetesObjectApi,
  header: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } },
): Promise<T | undefined> {
  try {
    return (await api.read(header as never)) as T;
  } catch (e) {
    if (isApiStatus(e, 404)) return undefined;
    throw e;
  }
}

/** Creates the object, or merge-patches what we render onto the live one; returns the result. */
export async function createOrMergePatch<T extends KubernetesObject>(
  api: KubernetesObjectApi,
  object: T,
): Promise<{ object: T; created: boolean }> {
  try {
    return { object: (await api.create(object, undefined, undefined, FIELD_MANAGER)) as T, created: true };
  } catch (e) {
    if (!isApiStatus(e, 409)) throw e;
  }
  const patched = await api.patch(
    object,
    undefined,
    undefined,
    FIELD_MANAGER,
    undefined,
    PatchStrategy.MergePatch,
  );
  return { object: patched as T, created: false };
}

/** Immutable objects (checksum-named ManagedResource secrets): an existing one already has this content. */
export async function createIfAbsent(api: KubernetesObjectApi, object: KubernetesObject): Promise<boolean> {
  try {
    await api.create(object, undefined, undefined, FIELD_MANAGER);
    return true;
  } catch (e) {
    if (isApiStatus(e, 409)) return false;
    throw e;
  }
}

export async function deleteIfPresent(api: KubernetesObjectApi, object: KubernetesObject): Promise<boolean> {
  try {
    await api.delete(object);
    return true;
  } catch (e) {
    if (isApiStatus(e, 404)) return false;
    throw e;
  }
}
