/**
 * Node delays for 1,000 nodes in 3 zones under single joins and leaves: per event, the patches
 * (annotations of other nodes that change), the smallest gap relative to the ideal window/n, the
 * longest same-zone run and the most restarts overlapping when each takes 5 s; our assignment
 * (controllers/node-delay) next to upstream's formula (index in the name-sorted list), on the same
 * event sequence in the same run. Seeded, so the figures repeat exactly (only timings vary).
 * `npx tsx hack/bench/node-delay.ts > docs/benchmarks/node-delay.out.txt` (about a minute; `--quick`: 20
 * nodes and 20 events per scenario, a few seconds).
 */
import { upstreamDelays } from '../../api/index.js';
import {
  assignDelays,
  longestZoneRun,
  mostOverlapping,
  sameZoneNeighbours,
  smallestGap,
} from '../../controllers/node-delay/index.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';

const { values: flags, quick } = benchCommandLine({
  script: 'hack/bench/node-delay.ts',
  duration: 'About a minute at the defaults; --quick (20 nodes, 20 events) a few seconds.',
  options: { nodes: { type: 'string', default: '1000', quick: '20' } },
});
/** The pool's size at the start of each scenario; the events scale with it. */
const NODES = Number(flags.nodes);
if (!Number.isInteger(NODES) || NODES < 10) throw new Error('--nodes must be an integer >= 10');
const scaled = (n: number) => Math.round((n * NODES) / 1000);

const S = 1e9;
const MAX = 300 * S;
const RESTART = 5 * S;
const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];

let seed = 20_240_101;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

type Naming = 'subnet' | 'random';

/** AWS-style names from per-zone subnets (sorting by name groups zones), or random names. */
function nodeName(naming: Naming, zoneIndex: number, taken: ReadonlyMap<string, string>): string {
  for (;;) {
    const name =
      naming === 'subnet'
        ? `ip-10-250-${zoneIndex * 32 + Math.floor(random() * 32)}-${1 + Math.floor(random() * 254)}.eu-west-1.compute.internal`
        : `shoot--prod--main-worker-${Math.floor(random() * 36 ** 5)
            .toString(36)
            .padStart(5, '0')}-${Math.floor(random() * 36 ** 5)
            .toString(36)
            .padStart(5, '0')}`;
    if (!taken.has(name)) return name;
  }
}

interface Sample {
  others: number;
  gapRatio: number;
  run: number;
  overlap: number;
  /** overlap / ⌈n·5 s/window⌉, the fewest any assignment of n nodes can have. */
  overlapRatio: number;
  sameZonePairs: number;
}

function measure(delays: ReadonlyMap<string, number>, zones: ReadonlyMap<string, string>) {
  const placed = [...delays].map(([name, delay]) => ({ name, delay, zone: zones.get(name) }));
  const n = placed.length;
  const overlap = mostOverlapping([...delays.values()], RESTART);
  return {
    gapRatio: n > 1 ? smallestGap(placed) / (MAX / n) : Number.POSITIVE_INFINITY,
    run: longestZoneRun(placed),
    overlap,
    overlapRatio: n > 0 ? overlap / Math.ceil((n * RESTART) / MAX) : 1,
    sameZonePairs: sameZoneNeighbours(placed),
  };
}

function changedOthers(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  joiner: string | undefined,
): number {
  let changed = 0;
  for (const [name, delay] of after)
    if (name !== joiner && before.has(name) && before.get(name) !== delay) changed++;
  return changed;
}

const quantile = (xs: readonly number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const fmt = (x: number, digits = 2) => (Number.isInteger(x) ? String(x) : x.toFixed(digits));

function report(title: string, ours: Sample[], upstream: Sample[], times: number[]): void {
  console.log(`\n## ${title} (${ours.length} events)\n`);
  const rows: [string, (s: Sample[]) => string][] = [
    ['patches of other nodes per event: mean', (s) => fmt(mean(s.map((x) => x.others)), 3)],
    [
      'patches of other nodes per event: p50 / p99 / max',
      (s) =>
        [0.5, 0.99]
          .map((q) =>
            fmt(
              quantile(
                s.map((x) => x.others),
                q,
              ),
            ),
          )
          .join(' / ') + ` / ${Math.max(...s.map((x) => x.others))}`,
    ],
    ['smallest gap / ideal (window/n): worst', (s) => fmt(Math.min(...s.map((x) => x.gapRatio)), 3)],
    ['smallest gap / ideal (window/n): mean', (s) => fmt(mean(s.map((x) => x.gapRatio)), 3)],
    [
      'longest same-zone run: max / mean',
      (s) => `${Math.max(...s.map((x) => x.run))} / ${fmt(mean(s.map((x) => x.run)))}`,
    ],
    [
      'same-zone neighbour pairs: max / mean',
      (s) => `${Math.max(...s.map((x) => x.sameZonePairs))} / ${fmt(mean(s.map((x) => x.sameZonePairs)))}`,
    ],
    [
      'most restarts overlapping (5 s each): max / mean',
      (s) => `${Math.max(...s.map((x) => x.overlap))} / ${fmt(mean(s.map((x) => x.overlap)))}`,
    ],
    [
      'most overlapping / ideal ⌈n·5 s/window⌉: worst / mean',
      (s) =>
        `${fmt(Math.max(...s.map((x) => x.overlapRatio)), 3)} / ${fmt(mean(s.map((x) => x.overlapRatio)), 3)}`,
    ],
  ];
  console.log('| measure | ours | upstream |');
  console.log('|---|---|---|');
  for (const [label, f] of rows) console.log(`| ${label} | ${f(ours)} | ${f(upstream)} |`);
  console.log(
    `| ms per assignment (median / max) | ${fmt(quantile(times, 0.5))} / ${fmt(Math.max(...times))} | - |`,
  );
}

/** Runs `events` joins/leaves from `start` nodes; `pJoin(i)` is the chance that event i is a join. */
function scenario(naming: Naming, start: number, events: number, pJoin: (i: number) => number) {
  const zones = new Map<string, string>();
  for (let i = 0; i < start; i++) {
    const z = i % ZONES.length;
    zones.set(nodeName(naming, z, zones), ZONES[z]!);
  }
  const input = () => [...zones].map(([name, zone]) => ({ name, zone }));
  let ours = assignDelays({ nodes: input(), minDelay: 0, maxDelay: MAX }).delays;
  let upstream = upstreamDelays([...zones.keys()], 0, MAX);
  const initial = { ours: measure(ours, zones), upstream: measure(upstream, zones) };
  const oursSamples: Sample[] = [];
  const upstreamSamples: Sample[] = [];
  const times: number[] = [];
  let respreads = 0;
  for (let i = 0; i < events; i++) {
    let joiner: string | undefined;
    if (random() < pJoin(i) || zones.size < 2) {
      const z = Math.floor(random() * ZONES.length);
      joiner = nodeName(naming, z, zones);
      zones.set(joiner, ZONES[z]!);
    } else {
      zones.delete(pick([...zones.keys()]));
    }
    const t = process.hrtime.bigint();
    const result = assignDelays({ nodes: input(), previous: ours, minDelay: 0, maxDelay: MAX });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    const nextUpstream = upstreamDelays([...zones.keys()], 0, MAX);
    const oursOthers = changedOthers(ours, result.delays, joiner);
    if (oursOthers > 3) respreads++;
    oursSamples.push({ others: oursOthers, ...measure(result.delays, zones) });
    upstreamSamples.push({
      others: changedOthers(upstream, nextUpstream, joiner),
      ...measure(nextUpstream, zones),
    });
    ours = result.delays;
    upstream = nextUpstream;
  }
  return { initial, oursSamples, upstreamSamples, times, respreads, end: zones.size };
}

console.log('# node-delay benchmark (hack/bench/node-delay.ts)');
if (quick) console.log(QUICK_NOTICE);
console.log(
  `\nwindow 0s..5m, restarts of 5 s, 3 zones, seed fixed; node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
);
console.log('patches of other nodes = nodes other than the joining/leaving one whose delay changes');

for (const naming of ['subnet', 'random'] as const) {
  const run = scenario(naming, NODES, NODES, () => 0.5);
  const label =
    naming === 'subnet'
      ? 'AWS-style names from per-zone subnets (name order groups zones)'
      : 'random machine names (zone not in the name)';
  report(
    `${NODES.toLocaleString('en-US')} nodes, single joins and leaves, ${label}`,
    run.oursSamples,
    run.upstreamSamples,
    run.times,
  );
  console.log(
    `\ninitial assignment: longest same-zone run ours ${run.initial.ours.run}, upstream ${run.initial.upstream.run}; ` +
      `events moving more than 3 others (ours): ${run.respreads}; nodes at the end: ${run.end}`,
  );
}

{
  // Growth past a power of two and shrinkage below the next lower one: the grid doubles (free)
  // and halves twice (1024 → 512 needs n ≤ 512).
  const run = scenario('random', NODES, scaled(1850), (i) => (i < scaled(600) ? 0.9 : 0.1));
  const others = run.oursSamples.map((s) => s.others);
  report(
    `${NODES.toLocaleString('en-US')} → about ${scaled(1480).toLocaleString('en-US')} → about ${scaled(480)} nodes (grid doubles, then halves twice), random names`,
    run.oursSamples,
    run.upstreamSamples,
    run.times,
  );
  console.log(
    `\nours: events moving more than 3 others (halvings included): ${run.respreads}; total other patches ${others.reduce((a, b) => a + b, 0)} over ${others.length} events; nodes at the end: ${run.end}`,
  );
}
