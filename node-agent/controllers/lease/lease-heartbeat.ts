/**
 * The node agent's heartbeat (gardener v1.91.4 pkg/nodeagent/controller/lease/reconciler.go): Lease
 * `kube-system/gardener-node-agent-<node>`, 40 s, renewed every 10 s, owned by the Node so it goes
 * with it. The seed reads it to tell whether every node runs the agent.
 */
import type { V1Node } from '@kubernetes/client-node';
import {
  formatMicroTime,
  LEASE_DURATION_SECONDS,
  NAMESPACE_KUBE_SYSTEM,
  nodeAgentLeaseName,
} from '../../../api/index.js';
import { isApiStatus } from '../../../runtime/kube/api-status.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import type { WireLease } from '../../../runtime/kube/lease.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';

export const LEASE_RENEW_INTERVAL_MS = (LEASE_DURATION_SECONDS * 1000) / 4;

/**
 * Renews the Lease. `last` is the Lease the previous renewal returned: updating it directly saves a
 * GET on every renewal (360 an hour per node); a conflict (someone else wrote it) or a missing
 * Lease falls back to reading, or creating, it.
 */
export async function renewLease(
  client: Pick<KubeClient, 'get' | 'create' | 'update'>,
  node: V1Node,
  now: Date,
  last?: WireLease,
): Promise<WireLease> {
  const name = nodeAgentLeaseName(node.metadata?.name ?? '');
  const desired: WireLease = {
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
      renewTime: formatMicroTime(now),
    },
  };
  const update = (current: WireLease) =>
    client.update<WireLease>(RESOURCE.lease, {
      ...current,
      metadata: { ...current.metadata, ownerReferences: desired.metadata?.ownerReferences },
      spec: desired.spec,
    });
  if (last?.metadata?.name === name && last.metadata.resourceVersion) {
    try {
      return await update(last);
    } catch (e) {
      if (!isApiStatus(e, 409, 404)) throw e;
    }
  }
  try {
    return await update(
      await client.get<WireLease>(RESOURCE.lease, { name, namespace: NAMESPACE_KUBE_SYSTEM }),
    );
  } catch (e) {
    if (!isApiStatus(e, 404)) throw e;
    return await client.create<WireLease>(RESOURCE.lease, desired);
  }
}
