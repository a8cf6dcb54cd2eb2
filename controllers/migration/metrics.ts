/** Prometheus metrics of the migration controller. */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface MigrationMetrics {
  readonly migrated: Gauge<'namespace' | 'pool'>;
  readonly total: Gauge<'namespace' | 'pool'>;
  readonly cleanups: Counter<'namespace'>;
}

const byRegistry = new WeakMap<Registry, MigrationMetrics>();

export function migrationMetrics(registry: Registry): MigrationMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: MigrationMetrics = {
    migrated: new Gauge({
      name: 'gardener_osc_migration_nodes_migrated',
      help: 'Nodes of a worker pool that run gardener-node-agent with the current configuration',
      labelNames: ['namespace', 'pool'],
      registers,
    }),
    total: new Gauge({
      name: 'gardener_osc_migration_nodes',
      help: 'Nodes of a worker pool that must be migrated',
      labelNames: ['namespace', 'pool'],
      registers,
    }),
    cleanups: new Counter({
      name: 'gardener_osc_migration_cleanups_total',
      help: 'Legacy cloud-config-downloader resources removed after a completed migration',
      labelNames: ['namespace'],
      registers,
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}
