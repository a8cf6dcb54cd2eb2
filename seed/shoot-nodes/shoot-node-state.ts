/**
 * What the shoot says about its nodes' configuration, grouped by worker pool: the pools that get
 * OSCs, the OSC secret of each pool in `kube-system` (by role label), and the Nodes of each pool
 * (Nodes being deleted left out). Node status and the migration both judge from this, read from
 * the shoot cache's informers (shoot-informers.ts).
 */

import type { NodeObject, SecretObject } from '../../api/index.js';
import { type Cluster, LABEL } from '../../api/index.js';

export interface NodeInfo {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly taints?: readonly { key: string; value?: string; effect: string }[];
}

export interface OscSecretInfo {
  readonly name: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface ShootNodeState {
  readonly pools: readonly string[];
  readonly secretsByPool: ReadonlyMap<string, OscSecretInfo>;
  readonly nodesByPool: ReadonlyMap<string, readonly NodeInfo[]>;
}

/** `role`: `operating-system-config` (the agent's secrets) or `cloud-config` (the legacy ones). Pure. */
export function shootNodeState(
  cluster: Cluster,
  nodes: readonly NodeObject[],
  secrets: readonly SecretObject[],
  role: string,
): ShootNodeState {
  const secretsByPool = new Map<string, OscSecretInfo>();
  for (const s of secrets) {
    if (s.metadata?.labels?.[LABEL.gardenerRole] !== role) continue;
    const pool = s.metadata?.labels?.[LABEL.workerPool];
    if (pool)
      secretsByPool.set(pool, {
        name: s.metadata?.name ?? '',
        annotations: s.metadata?.annotations ?? undefined,
      });
  }
  const nodesByPool = new Map<string, NodeInfo[]>();
  for (const n of nodes) {
    if (n.metadata?.deletionTimestamp) continue;
    const pool = n.metadata?.labels?.[LABEL.workerPool] ?? '';
    const info: NodeInfo = {
      name: n.metadata?.name ?? '',
      labels: n.metadata?.labels ?? undefined,
      annotations: n.metadata?.annotations ?? undefined,
      taints: n.spec?.taints ?? undefined,
    };
    nodesByPool.set(pool, [...(nodesByPool.get(pool) ?? []), info]);
  }
  const pools = cluster.shoot.spec.provider.workers.filter((w) => w.machine.image).map((w) => w.name);
  return { pools, secretsByPool, nodesByPool };
}
