/**
 * How a changed pool's nodes receive the new OSC, for the plan. With the rollout gate on (the
 * default, docs/rollout.md) the seed lets the change out in waves behind a health gate; with it
 * off every agent applies after its node's reconciliation delay, which the seed spreads over the
 * shoot's window (docs/node-delay.md), and the seed waits for every node to report.
 */
import {
  ANNOTATION,
  allNodesUpdatedTimeoutSeconds,
  type Cluster,
  formatGoDuration,
  maxDelayFromShoot,
} from '../../api/index.js';
import { effectiveSettings, maxPerWave } from '../../controllers/rollout/settings.js';
import type { PoolView, RolloutView } from '../../node-agent/plan-view/index.js';
import type { RolloutSettings } from '../../seed/manager/config.js';

export interface RolloutContext {
  /** The Cluster as it will be (its shoot's annotations decide the window). */
  readonly cluster: Cluster;
  readonly pool: PoolView;
  /** The Cluster object's own annotations (the rollout gate's per-Cluster settings). */
  readonly clusterAnnotations?: Readonly<Record<string, string>>;
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

/** The sizes of the waves for `n` nodes (the canary may be smaller when its zone has fewer nodes). */
export function waveSizes(
  settings: Pick<RolloutSettings, 'canary' | 'growth' | 'maxPerWave'>,
  n: number,
): number[] {
  const cap = maxPerWave(settings.maxPerWave, n);
  const sizes: number[] = [];
  let left = n;
  let last = 0;
  while (left > 0) {
    const size = Math.min(
      left,
      last === 0 ? Math.min(settings.canary, cap) : Math.min(cap, Math.ceil(last * settings.growth)),
    );
    sizes.push(size);
    left -= size;
    last = last === 0 ? Math.min(settings.canary, cap) : Math.min(cap, Math.ceil(last * settings.growth));
  }
  return sizes;
}

/**
 * The rollout gate's strategy (docs/rollout.md): with the gate on (the controller-manager's
 * `controllers.rollout`, overridden by the next Cluster's annotations), the pool's nodes get the
 * change in waves behind a health gate; with it off, each node after its delay.
 */
export function gatedRollout(base: RolloutSettings): RolloutStrategy {
  return (context) => {
    const { settings } = effectiveSettings(base, context.clusterAnnotations);
    if (!settings.gate) return reconciliationDelayRollout(context);
    const { cluster, pool } = context;
    if (pool.change !== 'changed') return undefined;
    const maxDelay = maxDelayFromShoot(cluster.shoot.metadata.annotations);
    const nodes = cluster.shoot.spec.provider.workers.find((w) => w.name === pool.name)?.maximum;
    const sizes = nodes && nodes > 0 ? waveSizes(settings, nodes) : undefined;
    const cap =
      typeof settings.maxPerWave === 'number'
        ? `${settings.maxPerWave} node(s)`
        : `${settings.maxPerWave.percent}% of the pool`;
    const settle = formatGoDuration(settings.settleTime * 1e6);
    const spacing = nodes ? formatGoDuration(Math.floor((maxDelay.seconds * SECOND_NS) / nodes)) : undefined;
    return {
      strategy: 'waves',
      canary: settings.canary,
      growth: settings.growth,
      maxPerWave:
        typeof settings.maxPerWave === 'number' ? settings.maxPerWave : `${settings.maxPerWave.percent}%`,
      settleTime: settle,
      failuresTolerated: settings.failuresTolerated,
      ...(sizes ? { waves: sizes, nodes } : {}),
      text:
        `in waves behind a health gate: a canary of ${settings.canary} node(s) in one zone, then ${settings.growth}× the last wave, at most ${cap}` +
        `${sizes ? ` (for the pool's maximum of ${nodes}: ${sizes.join(', ')})` : ''}; ` +
        `a node passes once it reports success and stays Ready with a fresh Lease for ${settle}; ` +
        `the pool halts at the ${settings.failuresTolerated === 0 ? 'first failure' : `failure number ${settings.failuresTolerated + 1}`}` +
        `${spacing ? `; within a wave the nodes get the change ${spacing} apart (${formatGoDuration(maxDelay.seconds * SECOND_NS)} / ${nodes})` : ''}`,
    };
  };
}
