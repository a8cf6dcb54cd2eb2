/** Prometheus metrics of the node-delay controller, per shoot. */
import { Counter, Gauge, type Registry } from 'prom-client';

export interface NodeDelayMetrics {
  /** Nodes whose annotation was written, by reason (new, moved, corrected). */
  readonly nodesAnnotated: Counter<'shoot' | 'reason'>;
  /** Patch requests, by result (patched, conflict, gone, error). */
  readonly patches: Counter<'shoot' | 'result'>;
  /** Nodes with an assigned delay (not being deleted). */
  readonly nodes: Gauge<'shoot'>;
}

const metricsByRegistry = new WeakMap<Registry, NodeDelayMetrics>();

/** The controller's metrics in `registry` (created once per registry, shared by every shoot). */
export function nodeDelayMetrics(registry: Registry): NodeDelayMetrics {
  const existing = metricsByRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: NodeDelayMetrics = {
    nodesAnnotated: new Counter({
      name: 'gardener_osc_node_delay_nodes_annotated_total',
      help: 'Nodes whose reconciliation-delay annotation was written, by reason (new, moved, corrected)',
      labelNames: ['shoot', 'reason'],
      registers,
    }),
    patches: new Counter({
      name: 'gardener_osc_node_delay_patches_total',
      help: 'Node patches of the reconciliation-delay annotation, by result (patched, conflict, gone, error)',
      labelNames: ['shoot', 'result'],
      registers,
    }),
    nodes: new Gauge({
      name: 'gardener_osc_node_delay_nodes',
      help: 'Nodes of the shoot with an assigned reconciliation delay',
      labelNames: ['shoot'],
      registers,
    }),
  };
  metricsByRegistry.set(registry, metrics);
  return metrics;
}
