/**
 * How a changed pool's nodes receive the new OSC, for the plan. Today every agent applies after its
 * node's reconciliation delay, which the seed spreads over the shoot's window (docs/node-delay.md),
 * and the seed waits for every node to report. A rollout gate (waves, a health gate) is another
 * `RolloutStrategy` returning its own view; the plan takes whichever the caller passes.
 */
import {
  ANNOTATION,
  allNodesUpdatedTimeoutSeconds,
  type Cluster,
  formatGoDuration,
  maxDelayFromShoot,
} from '../../api/index.js';
import type { PoolView, RolloutView } from '../../node-agent/plan-view/index.js';

export interface RolloutContext {
  /** The Cluster as it will be (its annotations decide the window). */
  readonly cluster: Cluster;
  readonly pool: PoolView;
}

export type RolloutStrategy = (context: RolloutContext) => RolloutView | undefined;

const SECOND_NS = 1e9;

/** Each node waits its `node-agent.gardener.cloud/reconciliation-delay` within `[0, max delay]`. */
export const reconciliationDelayRollout: RolloutStrategy = ({ cluster, pool }) => {
  if (pool.change !== 'changed') return undefined;
  const maxDelay = maxDelayFromShoot(cluster.shoot.metadata.annotations);
  const max = formatGoDuration(maxDelay.seconds * SECOND_NS);
  const timeout = formatGoDuration(allNodesUpdatedTimeoutSeconds(maxDelay.seconds, true) * SECOND_NS);
  const source =
    maxDelay.source === 'annotation'
      ? `shoot annotation ${ANNOTATION.maxDelaySeconds}: "${maxDelay.seconds}"`
      : `default; ${'reason' in maxDelay ? maxDelay.reason : `no annotation ${ANNOTATION.maxDelaySeconds}`}`;
  return {
    strategy: 'reconciliation-delay',
    maxDelay: max,
    maxDelaySource: maxDelay.source,
    allNodesUpdatedTimeout: timeout,
    text: `each node applies after its ${ANNOTATION.reconciliationDelay}, spread over 0s–${max} (${source}); the seed waits up to ${timeout} for every node to report`,
  };
};
