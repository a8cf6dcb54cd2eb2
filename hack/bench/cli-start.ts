/**
 * Start time of the executables, next to `node -e 0` measured in the same run (the calibration):
 * `gardener-osc --version`, `--help` and a render of the example from the compiled package (what an
 * installed package runs), the same from the sources under tsx (what every start cost before the
 * package was compiled), the controller-manager image's single executable, and the node agent.
 * Each command runs `--runs` times, interleaved with the others so load drifts hit all alike;
 * the report gives the median and p90 wall time and the ratio of the medians to `node -e 0`.
 *
 *   npx tsx hack/bench/cli-start.ts [--runs 15] > docs/benchmarks/cli-start.out.txt
 *
 * About a minute at the defaults (plus the image executable's build when it is not cached);
 * `--quick` runs each command once.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { buildControllerManagerExecutable } from '../build-controller-manager-image.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';

const ROOT = join(import.meta.dirname, '../..');
const { values, quick } = benchCommandLine({
  script: 'hack/bench/cli-start.ts',
  duration:
    'About a minute at the defaults, plus the image executable build when it is not cached; --quick runs each command once.',
  options: { runs: { type: 'string', default: '15', quick: '1' } },
});
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < (quick ? 1 : 3)) throw new Error('--runs must be an integer >= 3');

const build = spawnSync(process.execPath, [join(ROOT, 'hack/build-package.mjs')], { stdio: 'inherit' });
if (build.status !== 0) throw new Error('npm run build failed');
const executable = (await buildControllerManagerExecutable({ log: (l) => process.stderr.write(`${l}\n`) }))
  .binary;

const node = process.execPath;
const bin = join(ROOT, 'cli/bin.mjs');
const COMMANDS: { name: string; argv: string[] }[] = [
  { name: 'node -e 0 (calibration)', argv: [node, '-e', '0'] },
  { name: 'gardener-osc --version', argv: [node, bin, '--version'] },
  { name: 'gardener-osc --help', argv: [node, bin, '--help'] },
  { name: 'gardener-osc render (the example)', argv: [node, bin, 'render'] },
  { name: 'gardener-node-agent --version', argv: [node, join(ROOT, 'node-agent/bin.mjs'), '--version'] },
  { name: 'image executable: gardener-osc --version', argv: [executable, '--version'] },
  {
    name: 'image executable: gardener-osc render',
    argv: [
      executable,
      'render',
      '--cluster',
      join(ROOT, 'examples/cluster.yaml'),
      '--values',
      join(ROOT, 'examples/values.yaml'),
    ],
  },
  {
    name: 'sources under tsx: --version (before)',
    argv: [node, '--import', 'tsx', join(ROOT, 'cli/main.ts'), '--version'],
  },
  {
    name: 'sources under tsx: render (before)',
    argv: [node, '--import', 'tsx', join(ROOT, 'cli/main.ts'), 'render'],
  },
];

function wallMs(argv: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0]!, argv.slice(1), {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)]!;

const load0 = loadavg();
for (const c of COMMANDS) wallMs(c.argv); // warm the page cache once
const samples = new Map(COMMANDS.map((c) => [c.name, [] as number[]]));
for (let i = 0; i < RUNS; i++) for (const c of COMMANDS) samples.get(c.name)!.push(wallMs(c.argv));
const load1 = loadavg();

const base = quantile(samples.get(COMMANDS[0]!.name)!, 0.5);
const print = (line = '') => process.stdout.write(`${line}\n`);
print(`# CLI start time (hack/bench/cli-start.ts), ${new Date().toISOString()}`);
if (quick) print(QUICK_NOTICE);
print();
print(
  `node ${process.version}, ${cpus().length} CPUs, load average ${load0.map((l) => l.toFixed(2)).join(' / ')} at the start, ` +
    `${load1.map((l) => l.toFixed(2)).join(' / ')} at the end; ${RUNS} runs each, interleaved; wall time of the whole process`,
);
print();
print('| command | median ms | p90 ms | ÷ node -e 0 |');
print('|---|---|---|---|');
for (const c of COMMANDS) {
  const xs = samples.get(c.name)!;
  const p50 = quantile(xs, 0.5);
  print(`| ${c.name} | ${p50.toFixed(0)} | ${quantile(xs, 0.9).toFixed(0)} | ${(p50 / base).toFixed(2)}× |`);
}
const version = quantile(samples.get('gardener-osc --version')!, 0.5);
print();
print(
  `target: gardener-osc --version < 500 ms and within 3× of node -e 0: ${version < 500 && version / base <= 3 ? 'met' : 'MISSED'} ` +
    `(${version.toFixed(0)} ms, ${(version / base).toFixed(2)}×)`,
);
if (!existsSync(executable)) throw new Error('the image executable vanished');
