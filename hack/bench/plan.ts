/**
 * Planning cost: `gardener-osc plan` of shoots with 1, 10 and 100 worker pools where every pool's
 * kubelet `maxPods` changes, in one process (ms per pool, median of several rounds), next to a
 * calibration measured in the same run: rendering the same two shoots for the shoot side, which a
 * plan must do anyway. The ratio is what planning (the agent's planner, diffs, summaries) adds.
 * `npx tsx hack/bench/plan.ts > docs/benchmarks/plan.out.txt` (about 40 seconds; `--quick`: 1 pool, one
 * round, a few seconds).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseYaml } from '../../api/index.js';
import { planSources } from '../../cli/plan-command.js';
import { DEFAULT_NOW, renderSource } from '../../cli/render-command.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';

const { values: flags, quick } = benchCommandLine({
  script: 'hack/bench/plan.ts',
  duration: 'About 40 seconds at the defaults; --quick (1 pool, one round) a few seconds.',
  options: { pools: { type: 'string', default: '1,10,100', quick: '1' } },
});
const POOLS = flags.pools.split(',').map(Number);
if (POOLS.some((n) => !Number.isInteger(n) || n < 1))
  throw new Error('--pools takes positive integers separated by commas');

const ROOT = join(import.meta.dirname, '../..');
type Raw = {
  spec: {
    shoot: {
      spec: {
        provider: { workers: Record<string, unknown>[] };
        kubernetes: { kubelet: { maxPods: number } };
      };
    };
  };
};
const raw = parseYaml(readFileSync(join(ROOT, 'examples/cluster.yaml'), 'utf8')) as Raw;
const values = parseYaml(readFileSync(join(ROOT, 'examples/values.yaml'), 'utf8'));

function clusterWithPools(n: number, maxPods: number): Raw {
  const templates = raw.spec.shoot.spec.provider.workers;
  const copy = structuredClone(raw);
  copy.spec.shoot.spec.kubernetes.kubelet.maxPods = maxPods;
  // pools without a kubelet of their own, so the shoot's maxPods reaches every one
  copy.spec.shoot.spec.provider.workers = Array.from({ length: n }, (_, i) => {
    const { kubernetes: _own, ...worker } = structuredClone(templates[i % templates.length]!);
    return { ...worker, name: `pool-${i}` };
  });
  return copy;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function time(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

console.log(`# plan benchmark, ${new Date().toISOString()}, node ${process.version}`);
if (quick) console.log(QUICK_NOTICE);
console.log('pools | plan ms/pool (median) | calibration: two shoot renders ms/pool | ratio | changed pools');
for (const pools of POOLS) {
  const current = clusterWithPools(pools, 110);
  const next = clusterWithPools(pools, 120);
  const rounds = quick ? 1 : pools === 100 ? 5 : 15;
  const planTimes: number[] = [];
  const renderTimes: number[] = [];
  let changed = 0;
  for (let r = 0; r < rounds + 2; r++) {
    const t = time(() => {
      const { view } = planSources({
        current: { cluster: current, clusterName: 'a', values, valuesName: 'v' },
        next: { cluster: next, clusterName: 'b', values, valuesName: 'v' },
      });
      changed = view.pools.filter((p) => p.changed).length;
    });
    const c = time(() => {
      for (const cluster of [current, next])
        renderSource({ cluster, clusterName: 'c', values, target: 'shoot', now: DEFAULT_NOW });
    });
    if (r >= 2) {
      planTimes.push(t / pools);
      renderTimes.push(c / pools);
    }
  }
  const p = median(planTimes);
  const c = median(renderTimes);
  console.log(`${pools} | ${p.toFixed(2)} | ${c.toFixed(2)} | ${(p / c).toFixed(2)}x | ${changed}`);
}
