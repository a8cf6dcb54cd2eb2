/**
 * Prometheus metrics of the runtime, with controller-runtime's names so existing dashboards and
 * alerts keep working. One set per registry (each process, or each test, has its own).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface RuntimeMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  readonly queueDepth: Gauge<'name'>;
  readonly queueAdds: Counter<'name'>;
  readonly queueRetries: Counter<'name'>;
  readonly queueLatency: Histogram<'name'>;
  readonly watchRestarts: Counter<'resource' | 'reason'>;
}

const byRegistry = new WeakMap<Registry, RuntimeMetrics>();

export function runtimeMetrics(registry: Registry): RuntimeMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: RuntimeMetrics = {
    registry,
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    }),
    maxConcurrentReconciles: new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name'],
      registers,
    }),
    queueAdds: new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'],
      registers,
    }),
    queueRetries: new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'],
      registers,
    }),
    queueLatency: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'],
      buckets: [0.001, 0.01, 0.1, 1, 10, 60, 300, 1800],
      registers,
    }),
    watchRestarts: new Counter({
      name: 'gardener_osc_watch_restarts_total',
      help: 'Watches re-established, by resource and reason (timeout, expired, error, stale)',
      labelNames: ['resource', 'reason'],
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
