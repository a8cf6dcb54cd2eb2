/**
 * What the demo shows before it rolls a change out: `gardener-osc plan` of the live Cluster against
 * the changed one, one summary line per worker pool. Rendered offline with the example's values:
 * the CA bundles and images of the demo's landscape differ, what changes between the two does not.
 * Planned with the built-in least-disruption rules, as the demo's agents run by default.
 */
import { readFileSync } from 'node:fs';
import { parseYaml } from '../../api/index.js';
import { planSources } from '../../cli/plan-command.js';
import { EXAMPLE_VALUES } from '../../cli/render-command.js';
import { EMPTY_POLICY } from '../../node-agent/planner/disruption-policy.js';

export function planPreview(current: unknown, next: unknown): string[] {
  const values = parseYaml(readFileSync(EXAMPLE_VALUES, 'utf8'));
  const { view } = planSources({
    current: {
      cluster: current,
      clusterName: 'the live Cluster',
      values,
      valuesName: 'examples/values.yaml',
    },
    next: { cluster: next, clusterName: 'the changed Cluster', values, valuesName: 'examples/values.yaml' },
    disruptionPolicy: EMPTY_POLICY,
  });
  return view.pools.map((p) => `${p.name}: ${p.summary}`);
}
