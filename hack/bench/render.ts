/**
 * Rendering cost: shoots with 1, 10 and 100 worker pools rendered in one process (milliseconds
 * per pool, median of several rounds; peak RSS), next to a calibration measured in the same run
 * (serialising the same objects as plain JSON), and the CLI's wall time on the example.
 * `npx tsx hack/bench/render.ts > docs/benchmarks/render.out.txt` (about 30 seconds; `--quick`: 1 pool,
 * one round, a few seconds).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeCluster, parseRfc3339, parseYaml, stringifyYaml } from '../../api/index.js';
import { renderNodeConfiguration } from '../../charts/node-configuration.js';
import { RenderValuesSchema } from '../../charts/values/render-values.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';

const { values: flags, quick } = benchCommandLine({
  script: 'hack/bench/render.ts',
  duration: 'About 30 seconds at the defaults; --quick (1 pool, one round, one CLI run) a few seconds.',
  options: {
    pools: { type: 'string', default: '1,10,100', quick: '1' },
    'cli-runs': { type: 'string', default: '5', quick: '1' },
  },
});
const POOLS = flags.pools.split(',').map(Number);
const CLI_RUNS = Number(flags['cli-runs']);
if (POOLS.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(CLI_RUNS) || CLI_RUNS < 1)
  throw new Error('--pools takes positive integers separated by commas, --cli-runs a positive integer');

const ROOT = join(import.meta.dirname, '../..');
const raw = parseYaml(readFileSync(join(ROOT, 'examples/cluster.yaml'), 'utf8')) as {
  spec: { shoot: { spec: { provider: { workers: Record<string, unknown>[] } } } };
};
const values = RenderValuesSchema.parse(parseYaml(readFileSync(join(ROOT, 'examples/values.yaml'), 'utf8')));
const now = parseRfc3339('2024-01-01T00:00:00Z');

function clusterWithPools(n: number) {
  const templates = raw.spec.shoot.spec.provider.workers;
  const copy = structuredClone(raw);
  copy.spec.shoot.spec.provider.workers = Array.from({ length: n }, (_, i) => ({
    ...structuredClone(templates[i % templates.length]!),
    name: `pool-${i}`,
  }));
  const decoded = decodeCluster(copy);
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
  return decoded.value;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function time(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

console.log(`# render benchmark, ${new Date().toISOString()}, node ${process.version}`);
if (quick) console.log(QUICK_NOTICE);
console.log(
  'pools | render+yaml ms/pool (median) | calibration: JSON.stringify ms/pool | ratio | objects | yaml bytes',
);
let peakRss = process.memoryUsage().rss;
for (const pools of POOLS) {
  const cluster = clusterWithPools(pools);
  const rounds = quick ? 1 : pools === 100 ? 5 : 15;
  const renderTimes: number[] = [];
  const jsonTimes: number[] = [];
  let objects = 0;
  let bytes = 0;
  for (let r = 0; r < rounds + 2; r++) {
    let rendered: ReturnType<typeof renderNodeConfiguration> | undefined;
    const t = time(() => {
      rendered = renderNodeConfiguration({
        cluster,
        values,
        useGardenerNodeAgent: true,
        legacyNodes: false,
        now,
      });
      bytes = rendered.seed.map((o) => stringifyYaml(o)).join('---\n').length;
    });
    const j = time(() => {
      JSON.stringify(rendered!.seed);
    });
    objects = rendered!.seed.length;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    if (r >= 2) {
      renderTimes.push(t / pools);
      jsonTimes.push(j / pools);
    }
  }
  const m = median(renderTimes);
  const c = median(jsonTimes);
  console.log(
    `${pools} | ${m.toFixed(2)} | ${c.toFixed(3)} | ${(m / c).toFixed(0)}x | ${objects} | ${bytes}`,
  );
}
console.log(`peak RSS of this process: ${(peakRss / 1024 / 1024).toFixed(0)} MiB`);

const cliTimes: number[] = [];
const baseTimes: number[] = [];
for (let i = 0; i < CLI_RUNS; i++) {
  cliTimes.push(
    time(() =>
      execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'cli/main.ts'), 'render'], {
        cwd: ROOT,
        stdio: 'ignore',
      }),
    ),
  );
  baseTimes.push(
    time(() =>
      execFileSync(process.execPath, ['--import', 'tsx', '-e', '0'], { cwd: ROOT, stdio: 'ignore' }),
    ),
  );
}
console.log(
  `CLI render of examples/cluster.yaml: ${median(cliTimes).toFixed(0)} ms wall (median of ${CLI_RUNS}); calibration, node with the tsx loader doing nothing: ${median(baseTimes).toFixed(0)} ms`,
);
