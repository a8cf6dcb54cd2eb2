/**
 * The node agent's heartbeat (node-side §10): Lease `kube-system/gardener-node-agent-<node>`,
 * 40 s, renewed every 10 s, owned by the Node so it goes with it. The seed reads it to tell
 * whether every node runs the agent.
 */
import { type CoordinationV1Api, type V1Lease, V1MicroTime, type V1Node } from '@kubernetes/client-node';
import { LEASE_DURATION_SECONDS, NAMESPACE_KUBE_SYSTEM, nodeAgentLeaseName } from '../../../api/index.js';
import { isApiStatus } from '../../../runtime/kube/api-status.js';

export const LEASE_RENEW_INTERVAL_MS = (LEASE_DURATION_SECONDS * 1000) / 4;

/**
 * Renews the Lease. `last` is the Lease the previous renewal returned: updating it directly saves a
 * GET on every renewal (360 an hour per node); a conflict (someone else wrote it) or a missing
 * Lease falls back to reading, or creating, it.
 */
export async function renewLease(
  api: CoordinationV1Api,
  node: V1Node,
  now: Date,
  last?: V1Lease,
): Promise<V1Lease> {
  const name = nodeAgentLeaseName(node.metadata?.name ?? '');
  const desired: V1Lease = {
    metadata: {
      name,
      namespace: NAMESPACE_KUBE_SYSTEM,
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Node',
          name: node.metadata?.name ?? '',
          uid: node.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      holderIdentity: name,
      leaseDurationSeconds: LEASE_DURATION_SECONDS,
      renewTime: new V1MicroTime(now.getTime()),
    },
  };
  const update = (current: V1Lease) =>
    api.replaceNamespacedLease({
      name,
      namespace: NAMESPACE_KUBE_SYSTEM,
      body: {
        ...current,
        metadata: { ...current.metadata, ownerReferences: desired.metadata?.ownerReferences },
        spec: desired.spec,
      },
    });
  if (last?.metadata?.name === name && last.metadata.resourceVersion) {
    try {
      return await update(last);
    } catch (e) {
      if (!isApiStatus(e, 409, 404)) throw e;
    }
  }
  try {
    return await update(await api.readNamespacedLease({ name, namespace: NAMESPACE_KUBE_SYSTEM }));
  } catch (e) {
    if (!isApiStatus(e, 404)) throw e;
    return await api.createNamespacedLease({ namespace: NAMESPACE_KUBE_SYSTEM, body: desired });
  }
}
