/**
 * The node agent's heartbeat (node-side §10): Lease `kube-system/gardener-node-agent-<node>`,
 * 40 s, renewed every 10 s, owned by the Node so it goes with it. The seed reads it to tell
 * whether every node runs the agent.
 */
import type { V1Lease, V1Node } from '@kubernetes/client-node';
import { LEASE_DURATION_SECONDS, NAMESPACE_KUBE_SYSTEM, nodeAgentLeaseName } from '../../../api/index.js';
import { isApiStatus } from '../../../runtime/kube/api-status.js';
import { type KubeClient, segment } from '../../../runtime/kube/kube-client.js';

export const LEASE_RENEW_INTERVAL_MS = (LEASE_DURATION_SECONDS * 1000) / 4;

/** A Lease as the API server sends it: `renewTime` is a MicroTime string on the wire. */
export type WireLease = Omit<V1Lease, 'spec'> & {
  spec?: Omit<NonNullable<V1Lease['spec']>, 'renewTime' | 'acquireTime'> & {
    renewTime?: string;
    acquireTime?: string;
  };
};

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits, UTC. */
export function formatMicroTime(t: Date): string {
  return t.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${NAMESPACE_KUBE_SYSTEM}/leases`;

/**
 * Renews the Lease. `last` is the Lease the previous renewal returned: updating it directly saves a
 * GET on every renewal (360 an hour per node); a conflict (someone else wrote it) or a missing
 * Lease falls back to reading, or creating, it.
 */
export async function renewLease(
  client: KubeClient,
  node: V1Node,
  now: Date,
  last?: WireLease,
): Promise<WireLease> {
  const name = nodeAgentLeaseName(node.metadata?.name ?? '');
  const path = `${LEASES}/${segment(name)}`;
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
    client.replace<WireLease>(path, {
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
    return await update(await client.get<WireLease>(path));
  } catch (e) {
    if (!isApiStatus(e, 404)) throw e;
    return await client.create<WireLease>(LEASES, desired);
  }
}
