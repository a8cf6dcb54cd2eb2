/** Prometheus metrics of the token-labels controller, per shoot. */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface TokenLabelsMetrics {
  /** Label patches, by result (patched, conflict, gone, error). */
  readonly patches: Counter<'shoot' | 'result'>;
  /** Access-token secrets the shoot-access secrets target. */
  readonly targets: Gauge<'shoot'>;
}

const metricsByRegistry = new WeakMap<Registry, TokenLabelsMetrics>();

/** The controller's metrics in `registry` (created once per registry, shared by every shoot). */
export function tokenLabelsMetrics(registry: Registry): TokenLabelsMetrics {
  const existing = metricsByRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: TokenLabelsMetrics = {
    patches: new Counter({
      name: 'gardener_osc_token_labels_patches_total',
      help: 'Patches adding gardener.cloud/role=access-token to access-token secrets, by result (patched, conflict, gone, error)',
      labelNames: ['shoot', 'result'],
      registers,
    }),
    targets: new Gauge({
      name: 'gardener_osc_token_labels_targets',
      help: 'Access-token secrets in the shoot that shoot-access secrets target',
      labelNames: ['shoot'],
      registers,
    }),
  };
  metricsByRegistry.set(registry, metrics);
  return metrics;
}
