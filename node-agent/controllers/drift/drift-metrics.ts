/**
 * The drift monitor's metrics, registered beside the agent's own (agent-metrics.ts), one set per
 * registry: drifted paths and units now, repairs done, the time from a change to its report, and
 * whether the inotify watch is working or the periodic check alone detects.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface DriftMetrics {
  /** Open drifts now (not repaired, not adopted), by action the policy took (Report, Repair). */
  readonly drifted: Gauge<'action'>;
  readonly repairs: Counter<'result'>;
  readonly detectionLatency: Histogram;
  readonly watchActive: Gauge;
}

const byRegistry = new WeakMap<Registry, DriftMetrics>();

export function driftMetrics(registry: Registry): DriftMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: DriftMetrics = {
    drifted: new Gauge({
      name: 'gardener_node_agent_drifted_paths',
      help: 'Files and units that differ from what the agent applied last and are not repaired, by the action the drift policy took',
      labelNames: ['action'],
      registers,
    }),
    repairs: new Counter({
      name: 'gardener_node_agent_drift_repairs_total',
      help: 'Drift repairs, by result (repaired, failed)',
      labelNames: ['result'],
      registers,
    }),
    detectionLatency: new Histogram({
      name: 'gardener_node_agent_drift_detection_latency_seconds',
      help: 'Time from a change the inotify watch saw to the drift being reported',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    watchActive: new Gauge({
      name: 'gardener_node_agent_drift_watch_active',
      help: '1 while inotify watches the managed paths, 0 when only the periodic check detects drift',
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
