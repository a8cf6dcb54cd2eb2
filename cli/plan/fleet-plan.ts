/**
 * The plan of a shoot change across its fleet: for every worker pool, the node agent's own plan
 * from the pool's current `osc.yaml` to the next (so the fleet plan and what each agent does
 * cannot disagree), pools added and removed, and how the change rolls out. Pure.
 */
import type { Cluster } from '../../api/index.js';
import {
  type OscDocument,
  type PlanView,
  type PoolView,
  poolView,
  removedPoolView,
} from '../../node-agent/plan-view/index.js';
import type { DisruptionPolicy } from '../../node-agent/planner/disruption-policy.js';
import { type RolloutStrategy, reconciliationDelayRollout } from './rollout.js';

export interface RenderedShoot {
  /** Pool name → its `osc.yaml`, in the Shoot's order. */
  readonly pools: ReadonlyMap<string, OscDocument>;
  readonly cluster: Cluster;
  /** The Cluster object's own annotations (the rollout gate's per-Cluster settings). */
  readonly clusterAnnotations?: Readonly<Record<string, string>>;
}

export function planFleet(
  current: RenderedShoot,
  next: RenderedShoot,
  rollout: RolloutStrategy = reconciliationDelayRollout,
  /** Least disruption as the agents run it with this policy: each pool sums its restarts and drains. */
  policy?: DisruptionPolicy,
): PlanView {
  const pools: PoolView[] = [];
  for (const [name, osc] of next.pools) {
    const view = poolView(name, current.pools.get(name), osc, policy);
    const how = rollout({ cluster: next.cluster, pool: view, clusterAnnotations: next.clusterAnnotations });
    pools.push(how ? { ...view, rollout: how } : view);
  }
  for (const [name, osc] of current.pools) if (!next.pools.has(name)) pools.push(removedPoolView(name, osc));
  return { pools };
}
