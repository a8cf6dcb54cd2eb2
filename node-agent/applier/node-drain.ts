/**
 * What a DrainAndRestart needs of the cluster (docs/least-disruption.md): cordon the node, evict
 * its pods through the Eviction API (which honours PodDisruptionBudgets), wait until it is Ready
 * after the restarts, uncordon it. Each call is idempotent, as every step of a plan must be. The
 * agent gives one bound to its Node (node-agent/controllers/operatingsystemconfig/kube-node-drain.ts);
 * an apply without it cannot run a plan that drains.
 */
export interface NodeDrain {
  cordon(signal?: AbortSignal): Promise<void>;
  evictPods(signal?: AbortSignal): Promise<void>;
  waitReady(signal?: AbortSignal): Promise<void>;
  uncordon(signal?: AbortSignal): Promise<void>;
}
