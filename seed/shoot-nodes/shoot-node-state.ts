/**
 * What the shoot says about its nodes' configuration, grouped by worker pool: the pools that get
 * OSCs, the OSC secret of each pool in `kube-system` (by role label), and the Nodes of each pool
 * (Nodes being deleted left out). Node status and the migration both judge from this.
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { type Cluster, LABEL, NAMESPACE_KUBE_SYSTEM } from '../../api/index.js';

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

/** `role`: `operating-system-config` (the agent's secrets) or `cloud-config` (the legacy ones). */
export async function readShootNodeState(
  shoot: KubeConfig,
  cluster: Cluster,
  role: string,
): Promise<ShootNodeState> {
  const core = shoot.makeApiClient(CoreV1Api);
  const [nodes, secrets] = await Promise.all([
    core.listNode(),
    core.listNamespacedSecret({
      namespace: NAMESPACE_KUBE_SYSTEM,
      labelSelector: `${LABEL.gardenerRole}=${role}`,
    }),
  ]);
  const secretsByPool = new Map<string, OscSecretInfo>();
  for (const s of secrets.items) {
    const pool = s.metadata?.labels?.[LABEL.workerPool];
    if (pool) secretsByPool.set(pool, { name: s.metadata?.name ?? '', annotations: s.metadata?.annotations });
  }
  const nodesByPool = new Map<string, NodeInfo[]>();
  for (const n of nodes.items) {
    if (n.metadata?.deletionTimestamp) continue;
    const pool = n.metadata?.labels?.[LABEL.workerPool] ?? '';
    const info: NodeInfo = {
      name: n.metadata?.name ?? '',
      labels: n.metadata?.labels,
      annotations: n.metadata?.annotations,
      taints: n.spec?.taints,
    };
    nodesByPool.set(pool, [...(nodesByPool.get(pool) ?? []), info]);
  }
  const pools = cluster.shoot.spec.provider.workers.filter((w) => w.machine.image).map((w) => w.name);
  return { pools, secretsByPool, nodesByPool };
}
