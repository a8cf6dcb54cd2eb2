/** Prometheus metrics of the seed OperatingSystemConfig controller, per shoot namespace. */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface OscControllerMetrics {
  readonly pools: Gauge<'namespace'>;
  readonly nodesUpToDate: Gauge<'namespace'>;
  readonly nodesOutdated: Gauge<'namespace'>;
  readonly oscWrites: Counter<'namespace' | 'purpose'>;
  readonly waitTimeouts: Counter<'namespace'>;
}

const byRegistry = new WeakMap<Registry, OscControllerMetrics>();

export function oscControllerMetrics(registry: Registry): OscControllerMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: OscControllerMetrics = {
    pools: new Gauge({
      name: 'gardener_osc_worker_pools',
      help: 'Worker pools with a machine image per shoot',
      labelNames: ['namespace'],
      registers,
    }),
    nodesUpToDate: new Gauge({
      name: 'gardener_osc_nodes_up_to_date',
      help: "Nodes reporting their pool's current OperatingSystemConfig checksum",
      labelNames: ['namespace'],
      registers,
    }),
    nodesOutdated: new Gauge({
      name: 'gardener_osc_nodes_outdated',
      help: 'Nodes of a current key that have not reported the current checksum yet',
      labelNames: ['namespace'],
      registers,
    }),
    oscWrites: new Counter({
      name: 'gardener_osc_operatingsystemconfig_writes_total',
      help: 'OperatingSystemConfigs created or updated (unchanged ones are not written)',
      labelNames: ['namespace', 'purpose'],
      registers,
    }),
    waitTimeouts: new Counter({
      name: 'gardener_osc_extension_wait_timeouts_total',
      help: 'Times the OS extension did not report an OperatingSystemConfig ready within the wait timeout',
      labelNames: ['namespace'],
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
