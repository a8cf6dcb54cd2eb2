/** The example shoot and the changes the plan tests make to it. */
import { readFileSync } from 'node:fs';
import { parseYaml } from '../../api/index.js';
import { planSources } from '../../cli/plan-command.js';
import { EXAMPLE_CLUSTER, EXAMPLE_VALUES } from '../../cli/render-command.js';
import type { PlanView, PoolView } from '../../node-agent/plan-view/index.js';
import type { DisruptionPolicy } from '../../node-agent/planner/disruption-policy.js';

export interface Worker {
  name: string;
  kubernetes?: { kubelet?: { maxPods?: number } & Record<string, unknown> };
  sysctls?: Record<string, string>;
}
export interface ClusterDoc {
  spec: {
    shoot: { spec: { provider: { workers: Worker[] }; kubernetes: { kubelet: Record<string, unknown> } } };
  };
}

const EXAMPLE_TEXT = readFileSync(EXAMPLE_CLUSTER, 'utf8');
const VALUES_TEXT = readFileSync(EXAMPLE_VALUES, 'utf8');
export const example = () => parseYaml(EXAMPLE_TEXT) as ClusterDoc;
export const values = () => parseYaml(VALUES_TEXT) as Record<string, unknown>;
export const worker = (c: ClusterDoc, name: string) =>
  c.spec.shoot.spec.provider.workers.find((w) => w.name === name)!;

/** Without a policy: every changed unit restarts, as `--disruption-policy none`. */
export function plan(
  next: ClusterDoc,
  nextValues: unknown = values(),
  disruptionPolicy?: DisruptionPolicy,
): { view: PlanView; warnings: string[] } {
  return planSources({
    current: { cluster: example(), clusterName: 'cluster a', values: values(), valuesName: 'values' },
    next: { cluster: next, clusterName: 'cluster b', values: nextValues, valuesName: 'values' },
    ...(disruptionPolicy ? { disruptionPolicy } : {}),
  });
}

export const pool = (view: PlanView, name: string): PoolView => view.pools.find((p) => p.name === name)!;
export const summaries = (view: PlanView) => view.pools.map((p) => `${p.name}: ${p.summary}`);

/** The gpu-worker's own kubelet gets maxPods 74 instead of 64: one pool of three changes. */
export function gpuMaxPods(): ClusterDoc {
  const next = example();
  worker(next, 'gpu-worker').kubernetes!.kubelet!.maxPods = 74;
  return next;
}
