/**
 * What the authorizer knows of one shoot, read from the controller-manager's shoot cache (no
 * request of its own per decision): Nodes by name with their pool label, the OSC secrets by pool,
 * the node agents' CertificateSigningRequests (who asked, when an identity was first approved),
 * and whether a Node existed and is gone.
 */

import type { NodeObject, SecretObject } from '../../api/index.js';
import { LABEL, LABEL_VALUE, NAME } from '../../api/index.js';
import type { Informer } from '../../runtime/kube/informer.js';
import {
  BOOTSTRAP_USER_PREFIX,
  type CsrObject,
  type NodeAgentCsrIndex,
} from '../../seed/node-identity/node-agent-csr.js';
import type { NodeAgentWorld } from './decide.js';
import type { GoneNodes } from './gone-nodes.js';

/** The token secrets every node agent syncs with a per-node identity. */
export const NODE_AGENT_TOKEN_SECRETS = [NAME.valitail] as const;

export interface ShootWorldOptions {
  readonly nodes: Informer<NodeObject>;
  readonly oscSecrets: Informer<SecretObject>;
  readonly csrs: Informer<CsrObject>;
  readonly csrIndex: NodeAgentCsrIndex;
  readonly bootstrapWindowMs: number;
  /** Nodes deleted while the process watched (gone-nodes.ts). */
  readonly goneNodes?: Pick<GoneNodes, 'has'>;
  readonly now?: () => number;
  /** Whether the shoot follows the v1.150.0 contract (NodeAgentWorld.eventsV1). */
  readonly eventsV1?: () => boolean;
}

export function shootWorld(o: ShootWorldOptions): NodeAgentWorld {
  const now = o.now ?? Date.now;
  return {
    eventsV1: o.eventsV1,
    node(name) {
      const node = o.nodes.get(name);
      if (!node || node.metadata?.deletionTimestamp) return undefined;
      return { pool: node.metadata?.labels?.[LABEL.workerPool] };
    },
    oscSecretNames(pool) {
      const names: string[] = [];
      for (const s of o.oscSecrets.list()) {
        const labels = s.metadata?.labels;
        if (labels?.[LABEL.gardenerRole] !== LABEL_VALUE.roleOperatingSystemConfig) continue;
        if (pool !== undefined && labels[LABEL.workerPool] !== pool) continue;
        if (pool === undefined && !labels[LABEL.workerPool]) continue;
        if (s.metadata?.name) names.push(s.metadata.name);
      }
      return names;
    },
    tokenSecretNames: NODE_AGENT_TOKEN_SECRETS,
    recentlyIssued(node) {
      // from the first approval for this name: a later approval (a second bootstrap request, which
      // the approver denies, or a renewal) does not start the window again
      let first = Number.POSITIVE_INFINITY;
      for (const c of o.csrIndex.list())
        if (c.node === node && c.approvedAt !== undefined) first = Math.min(first, c.approvedAt);
      return first >= now() - o.bootstrapWindowMs && first !== Number.POSITIVE_INFINITY;
    },
    nodeWasRegistered(node) {
      if (o.goneNodes?.has(node) || o.nodes.get(node)?.metadata?.deletionTimestamp) return true;
      // after a restart: an identity approved for anyone but a bootstrap token (a renewal, a
      // running node switching) was approved for a registered Node
      return o.csrIndex
        .list()
        .some(
          (c) =>
            c.node === node && c.approvedAt !== undefined && !c.requester.startsWith(BOOTSTRAP_USER_PREFIX),
        );
    },
    csrRequester: (name) => o.csrs.get(name)?.spec?.username,
    // no pod cache: a shoot has many; the webhook reads an evicted pod live
    podNode: () => undefined,
  };
}
