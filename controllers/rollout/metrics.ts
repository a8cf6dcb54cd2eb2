/** Prometheus metrics of the rollout gate, per shoot namespace and worker pool. */
import { Counter, Gauge, type Registry } from 'prom-client';

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
