/**
 * Rendering cost per contract: shoots with 1, 10 and 100 worker pools rendered in one process in
 * both contracts, v1.91.4 (examples/cluster.yaml) and v1.150.0 (examples/cluster-v1.150.yaml),
 * rounds interleaved (milliseconds per pool, median of several rounds; peak RSS), next to a
 * calibration measured in the same run (serialising the same objects as plain JSON), and the
 * CLI's wall time on each example.
 * `npx tsx hack/bench/render.ts > docs/benchmarks/render.out.txt` (about 90 seconds; `--quick`: 1 pool,
 * one round, one CLI run per contract, about 10 seconds).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  decodeCluster,
  type GardenerVersion,
  parseRfc3339,
  parseYaml,
  stringifyYaml,
} from '../../api/index.js';
import { renderNodeConfiguration } from '../../charts/node-configuration.js';
import { RenderValuesSchema } from '../../charts/values/render-values.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';

const { values: flags, quick } = benchCommandLine({
  script: 'hack/bench/render.ts',
  duration:
    'About 90 seconds at the defaults; --quick (1 pool, one round, one CLI run per contract) about 10 seconds.',
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
type RawCluster = { spec: { shoot: { spec: { provider: { workers: Record<string, unknown>[] } } } } };
const CONTRACTS: { version: GardenerVersion; example: string; raw: RawCluster }[] = [
  { version: 'v1.91.4', example: 'examples/cluster.yaml' },
  { version: 'v1.150.0', example: 'examples/cluster-v1.150.yaml' },
].map((c) => ({
  ...(c as { version: GardenerVersion; example: string }),
  raw: parseYaml(readFileSync(join(ROOT, c.example), 'utf8')) as RawCluster,
}));
const values = RenderValuesSchema.parse(parseYaml(readFileSync(join(ROOT, 'examples/values.yaml'), 'utf8')));
const now = parseRfc3339('2024-01-01T00:00:00Z');

function clusterWithPools(raw: RawCluster, n: number) {
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
  'pools | contract | render+yaml ms/pool (median) | calibration: JSON.stringify ms/pool | ratio | objects | yaml bytes',
);
let peakRss = process.memoryUsage().rss;
for (const pools of POOLS) {
  const rounds = quick ? 1 : pools === 100 ? 5 : 15;
  const runs = CONTRACTS.map((c) => ({
    ...c,
    cluster: clusterWithPools(c.raw, pools),
    renderTimes: [] as number[],
    jsonTimes: [] as number[],
    objects: 0,
    bytes: 0,
  }));
  // rounds interleaved, so both contracts see the same machine
  for (let r = 0; r < rounds + 2; r++) {
    for (const run of runs) {
      let rendered: ReturnType<typeof renderNodeConfiguration> | undefined;
      const t = time(() => {
        rendered = renderNodeConfiguration({
          cluster: run.cluster,
          values,
          gardenerVersion: run.version,
          useGardenerNodeAgent: true,
          legacyNodes: false,
          now,
        });
        run.bytes = rendered.seed.map((o) => stringifyYaml(o)).join('---\n').length;
      });
      const j = time(() => {
        JSON.stringify(rendered!.seed);
      });
      run.objects = rendered!.seed.length;
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      if (r >= 2) {
        run.renderTimes.push(t / pools);
        run.jsonTimes.push(j / pools);
      }
    }
  }
  for (const run of runs) {
    const m = median(run.renderTimes);
    const c = median(run.jsonTimes);
    console.log(
      `${pools} | ${run.version} | ${m.toFixed(2)} | ${c.toFixed(3)} | ${(m / c).toFixed(0)}x | ${run.objects} | ${run.bytes}`,
    );
  }
  const [v91, v150] = runs.map((run) => median(run.renderTimes));
  console.log(`${pools} | v1.150.0 / v1.91.4 render time per pool: ${(v150! / v91!).toFixed(2)}`);
}
console.log(`peak RSS of this process: ${(peakRss / 1024 / 1024).toFixed(0)} MiB`);

const cliTimes = new Map(CONTRACTS.map((c) => [c.version, [] as number[]]));
const baseTimes: number[] = [];
for (let i = 0; i < CLI_RUNS; i++) {
  for (const c of CONTRACTS)
    cliTimes
      .get(c.version)!
      .push(
        time(() =>
          execFileSync(
            process.execPath,
            [
              '--import',
              'tsx',
              join(ROOT, 'cli/main.ts'),
              'render',
              '--cluster',
              c.example,
              '--values',
              'examples/values.yaml',
            ],
            { cwd: ROOT, stdio: 'ignore' },
          ),
        ),
      );
  baseTimes.push(
    time(() =>
      execFileSync(process.execPath, ['--import', 'tsx', '-e', '0'], { cwd: ROOT, stdio: 'ignore' }),
    ),
  );
}
for (const c of CONTRACTS)
  console.log(
    `CLI render of ${c.example} (${c.version}): ${median(cliTimes.get(c.version)!).toFixed(0)} ms wall (median of ${CLI_RUNS})`,
  );
console.log(`calibration, node with the tsx loader doing nothing: ${median(baseTimes).toFixed(0)} ms`);
