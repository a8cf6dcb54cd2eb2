/**
 * What the authorizer knows of one shoot, read from the controller-manager's shoot cache (no
 * request of its own per decision): Nodes by name with their pool label, the OSC secrets by pool,
 * the node agents' CertificateSigningRequests (who asked, when an identity was approved).
 */
import { LABEL, LABEL_VALUE, NAME } from '../../api/index.js';
import type { Informer } from '../../runtime/kube/informer.js';
import type { CsrObject, NodeAgentCsrIndex } from '../../seed/node-identity/node-agent-csr.js';
import type { ShootObject } from '../../seed/shoot-nodes/shoot-node-state.js';
import type { NodeAgentWorld } from './decide.js';

/** The token secrets every node agent syncs with a per-node identity. */
export const NODE_AGENT_TOKEN_SECRETS = [NAME.valitail] as const;

export interface ShootWorldOptions {
  readonly nodes: Informer<ShootObject>;
  readonly oscSecrets: Informer<ShootObject>;
  readonly csrs: Informer<CsrObject>;
  readonly csrIndex: NodeAgentCsrIndex;
  readonly bootstrapWindowMs: number;
  readonly now?: () => number;
}

export function shootWorld(o: ShootWorldOptions): NodeAgentWorld {
  const now = o.now ?? Date.now;
  return {
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
      const since = now() - o.bootstrapWindowMs;
      return o.csrIndex.list().some((c) => c.node === node && c.approved && c.createdAt >= since);
    },
    csrRequester: (name) => o.csrs.get(name)?.spec?.username,
  };
}
