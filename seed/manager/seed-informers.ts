/**
 * The seed informers several controllers read, each defined once so that every reader gets the
 * same watch from the seed cache: the Clusters, the OperatingSystemConfigs, the shoot-access
 * secrets, the shoots' `gardener-internal` credentials and the migration states.
 */
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { LABEL, LABEL_VALUE } from '../../api/index.js';
import type { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import type { Informer } from '../../runtime/kube/informer.js';
import type { KubeObject } from '../../runtime/kube/list-watch.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../migration-state/state.js';

/**
 * Seed secrets whose token a token-requestor writes into the shoot: GRM's (or, in direct mode,
 * our) `purpose=token-requestor`, `class=shoot`.
 */
export const SHOOT_ACCESS_SELECTOR = `${LABEL.tokenRequestorPurpose}=${LABEL_VALUE.purposeTokenRequestor},${LABEL.resourceClass}=${LABEL_VALUE.classShoot}`;

/** Every shoot-access secret of the seed (token-labels, token-requestor). */
export function shootAccessSecrets(cache: ClusterCache): Informer<V1Secret> {
  return cache.informer<V1Secret>({ resource: RESOURCE.secret, labelSelector: SHOOT_ACCESS_SELECTOR });
}

/** Every `gardener-internal` secret of the seed: the shoots' credentials (shoot access). */
export function shootCredentials(cache: ClusterCache): Informer<V1Secret> {
  return cache.informer<V1Secret>({
    resource: RESOURCE.secret,
    fieldSelector: 'metadata.name=gardener-internal',
  });
}

/** Every OperatingSystemConfig of the seed (operatingsystemconfig, os-local). */
export function operatingSystemConfigs<T extends KubeObject>(cache: ClusterCache): Informer<T> {
  return cache.informer<T>({ resource: RESOURCE.operatingSystemConfig });
}

/** The migration state of every shoot (migration, operatingsystemconfig). */
export function migrationStates(cache: ClusterCache): Informer<V1ConfigMap> {
  return cache.informer<V1ConfigMap>({
    resource: RESOURCE.configMap,
    labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`,
  });
}
