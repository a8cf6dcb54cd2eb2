/** Prometheus metrics of the rollout gate, per shoot namespace and worker pool. */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { PoolRollout } from './state.js';

export interface RolloutMetrics {
  readonly halted: Gauge<'namespace' | 'pool'>;
  readonly wave: Gauge<'namespace' | 'pool'>;
  readonly nodes: Gauge<'namespace' | 'pool' | 'state'>;
  readonly halts: Counter<'namespace' | 'pool'>;
  readonly failures: Counter<'namespace' | 'pool' | 'reason'>;
  readonly permissionPatches: Counter<'namespace' | 'result'>;
  readonly stalledNodes: Gauge<'namespace' | 'pool'>;
  readonly stalls: Counter<'namespace' | 'pool' | 'action'>;
}

const byRegistry = new WeakMap<Registry, RolloutMetrics>();

export function rolloutMetrics(registry: Registry): RolloutMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: RolloutMetrics = {
    halted: new Gauge({
      name: 'gardener_osc_rollout_halted',
      help: 'Whether the rollout of a worker pool is halted (1) or not (0)',
      labelNames: ['namespace', 'pool'],
      registers,
    }),
    wave: new Gauge({
      name: 'gardener_osc_rollout_wave',
      help: 'The wave the rollout of a worker pool is in (0: none started)',
      labelNames: ['namespace', 'pool'],
      registers,
    }),
    nodes: new Gauge({
      name: 'gardener_osc_rollout_nodes',
      help: 'Nodes of a worker pool by rollout state (updated, failed, pending)',
      labelNames: ['namespace', 'pool', 'state'],
      registers,
    }),
    halts: new Counter({
      name: 'gardener_osc_rollout_halts_total',
      help: 'Rollouts halted by the health gate',
      labelNames: ['namespace', 'pool'],
      registers,
    }),
    failures: new Counter({
      name: 'gardener_osc_rollout_node_failures_total',
      help: 'Nodes that failed the health gate, by reason',
      labelNames: ['namespace', 'pool', 'reason'],
      registers,
    }),
    permissionPatches: new Counter({
      name: 'gardener_osc_rollout_permission_patches_total',
      help: 'Node patches of the rollout permission, by result (patched, gone, error)',
      labelNames: ['namespace', 'result'],
      registers,
    }),
    stalledNodes: new Gauge({
      name: 'gardener_osc_rollout_stalled_nodes',
      help: 'Nodes the current wave of a worker pool waits for beyond its waveTimeout (the gate cannot judge them)',
      labelNames: ['namespace', 'pool'],
      registers,
    }),
    stalls: new Counter({
      name: 'gardener_osc_rollout_stalled_nodes_total',
      help: 'Nodes a wave waited for beyond its waveTimeout, by what the wave did (skip, fail, wait)',
      labelNames: ['namespace', 'pool', 'action'],
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/**
 * Sets every pool's gauges from the rollout status and removes those of pools no longer in it;
 * returns the pools reported, for the next call.
 */
export function reportPools(
  metrics: RolloutMetrics,
  namespace: string,
  previous: readonly string[],
  status: ReadonlyMap<string, PoolRollout>,
): string[] {
  for (const pool of previous) {
    if (status.has(pool)) continue;
    metrics.halted.remove({ namespace, pool });
    metrics.wave.remove({ namespace, pool });
    metrics.stalledNodes.remove({ namespace, pool });
    for (const state of ['updated', 'failed', 'pending']) metrics.nodes.remove({ namespace, pool, state });
  }
  for (const [pool, s] of status) {
    metrics.halted.set({ namespace, pool }, s.phase === 'Halted' ? 1 : 0);
    metrics.wave.set({ namespace, pool }, s.wave);
    metrics.stalledNodes.set({ namespace, pool }, s.stalled?.length ?? 0);
    metrics.nodes.set({ namespace, pool, state: 'updated' }, s.updated);
    metrics.nodes.set({ namespace, pool, state: 'failed' }, s.failed);
    metrics.nodes.set({ namespace, pool, state: 'pending' }, s.pending);
  }
  return [...status.keys()];
}
