/**
 * The node agent's heartbeat (node-side §10): Lease `kube-system/gardener-node-agent-<node>`,
 * 40 s, renewed every 10 s, owned by the Node so it goes with it. The seed reads it to tell
 * whether every node runs the agent.
 */
import {
  ApiException,
  type CoordinationV1Api,
  type V1Lease,
  V1MicroTime,
  type V1Node,
} from '@kubernetes/client-node';
import { LEASE_DURATION_SECONDS, NAMESPACE_KUBE_SYSTEM, nodeAgentLeaseName } from '../../../api/index.js';

export const LEASE_RENEW_INTERVAL_MS = (LEASE_DURATION_SECONDS * 1000) / 4;

export async function renewLease(api: CoordinationV1Api, node: V1Node, now: Date): Promise<V1Lease> {
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
  try {
    const current = await api.readNamespacedLease({ name, namespace: NAMESPACE_KUBE_SYSTEM });
    return await api.replaceNamespacedLease({
      name,
      namespace: NAMESPACE_KUBE_SYSTEM,
      body: {
        ...current,
        metadata: { ...current.metadata, ownerReferences: desired.metadata?.ownerReferences },
        spec: desired.spec,
      },
    });
  } catch (e) {
    if (!(e instanceof ApiException && e.code === 404)) throw e;
    return await api.createNamespacedLease({ namespace: NAMESPACE_KUBE_SYSTEM, body: desired });
  }
}
