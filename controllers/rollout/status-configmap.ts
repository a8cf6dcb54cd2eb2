/**
 * The rollout status ConfigMap is the gate's state (state.ts encodes it): written with the
 * resourceVersion it was read with, so two writers never both act on one decision.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { ROLLOUT_STATUS_CONFIGMAP } from '../../api/index.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../seed/migration-state/state.js';
import { encodeRolloutStatus, type PoolRollout } from './state.js';

/**
 * The ConfigMap as written, or undefined when another writer changed it since it was read
 * (409): the decision is void.
 */
export async function writeRolloutStatus(
  seed: Pick<KubeClient, 'create' | 'update'>,
  namespace: string,
  current: V1ConfigMap | undefined,
  next: ReadonlyMap<string, PoolRollout>,
): Promise<V1ConfigMap | undefined> {
  const data = encodeRolloutStatus(next);
  const before = Object.fromEntries(Object.entries(current?.data ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));
  if (current && JSON.stringify(before) === JSON.stringify(data)) return current;
  const body: V1ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: ROLLOUT_STATUS_CONFIGMAP,
      namespace,
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE },
      ...(current?.metadata?.resourceVersion ? { resourceVersion: current.metadata.resourceVersion } : {}),
    },
    data,
  };
  // the resourceVersion read at the start is the lock: a 409 means another writer, decide again
  try {
    return current
      ? await seed.update(RESOURCE.configMap, body)
      : await seed.create(RESOURCE.configMap, body);
  } catch (e) {
    if (isApiStatus(e, 409)) return undefined;
    throw e;
  }
}
