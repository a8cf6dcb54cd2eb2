/**
 * The shoot informers several controllers read, each defined once so that every reader gets the
 * same watch from the shoot cache: every Node (node-delay, node status, the migration), the OSC
 * secrets of both generations in `kube-system` (node status, the migration), and the node agents'
 * Leases (the migration, while it runs).
 */

import type { NodeObject, SecretObject } from '../../api/index.js';
import { LABEL, LABEL_VALUE, NAMESPACE_KUBE_SYSTEM } from '../../api/index.js';
import type { AcquiredInformer, ClusterCache } from '../../runtime/kube/cluster-cache.js';
import type { Informer } from '../../runtime/kube/informer.js';
import type { WireLease } from '../../runtime/kube/lease.js';
import { RESOURCE } from '../../runtime/kube/resource.js';

export function shootNodes<T extends NodeObject = NodeObject>(cache: ClusterCache): Informer<T> {
  return cache.informer({ resource: RESOURCE.node }) as Informer<T>;
}

/** The OSC secrets of the agent (`operating-system-config`) and of the legacy executor (`cloud-config`). */
export function oscSecrets(cache: ClusterCache): Informer<SecretObject> {
  return cache.informer({
    resource: RESOURCE.secret,
    namespace: NAMESPACE_KUBE_SYSTEM,
    labelSelector: `${LABEL.gardenerRole} in (${LABEL_VALUE.roleOperatingSystemConfig},${LABEL_VALUE.roleCloudConfig})`,
  });
}

/** Every Lease in `kube-system` (the agents' `gardener-node-agent-<node>`), held until released. */
export function agentLeases(cache: ClusterCache): AcquiredInformer<WireLease> {
  return cache.acquire<WireLease>({ resource: RESOURCE.lease, namespace: NAMESPACE_KUBE_SYSTEM });
}
