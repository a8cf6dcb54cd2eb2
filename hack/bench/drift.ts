/**
 * Drift detection on the example's node (docs/reliability.md#drift, docs/benchmarks.md): one pool's
 * reconcile OSC as rendered from examples/cluster.yaml, applied to a temp root (image files from a
 * directory, an in-memory systemd), then
 *  - a full drift check (every file, unit file and drop-in read and compared, unit state asked),
 *    ms per check (median), as a ratio to an up-to-date apply of the same OSC measured in the same
 *    run (what the agent already does on every resync);
 *  - the monitor's cost at rest: CPU time and RSS growth over an idle window with its inotify
 *    watch on every managed directory (no periodic check in the window);
 *  - the time from an edit of a managed file to its drift being reported (the monitor's Event),
 *    report only (a rollout holds the repair), median and max over the edits.
 * `npx tsx hack/bench/drift.ts > docs/benchmarks/drift.out.txt` (about 30 seconds; `--quick`:
 * a second or two).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Registry } from 'prom-client';
import { parseYaml, stringifyYaml } from '../../api/index.js';
import { poolOscs } from '../../cli/plan/pool-oscs.js';
import { DEFAULT_NOW, renderSource } from '../../cli/render-command.js';
import { applyOsc } from '../../node-agent/applier/apply-osc.js';
import { detectDrift } from '../../node-agent/applier/drift-detect.js';
import { HostRoot } from '../../node-agent/applier/host-root.js';
import { driftMetrics } from '../../node-agent/controllers/drift/drift-metrics.js';
import { DriftMonitor } from '../../node-agent/controllers/drift/drift-monitor.js';
import { DirectoryImageExtractor } from '../../node-agent/registry/directory-extractor.js';
import { MemorySystemd } from '../node-agent-doubles/memory-systemd.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';

const { values: flags, quick } = benchCommandLine({
  script: 'hack/bench/drift.ts',
  duration: 'About 30 seconds at the defaults; --quick a second or two.',
  options: {
    rounds: { type: 'string', default: '50', quick: '2' },
    edits: { type: 'string', default: '30', quick: '2' },
    'idle-seconds': { type: 'string', default: '10', quick: '0.2' },
  },
});
const ROUNDS = Number(flags.rounds);
const EDITS = Number(flags.edits);
const IDLE_MS = Number(flags['idle-seconds']) * 1000;

const ROOT = join(import.meta.dirname, '../..');
const cluster = parseYaml(readFileSync(join(ROOT, 'examples/cluster.yaml'), 'utf8'));
const values = parseYaml(readFileSync(join(ROOT, 'examples/values.yaml'), 'utf8'));
const rendered = renderSource({ cluster, clusterName: 'example', values, target: 'shoot', now: DEFAULT_NOW });
const [poolName, pool] = [...poolOscs(rendered.objects)][0]!;
const osc = pool.osc;
const oscText = stringifyYaml(osc);

const work = mkdtempSync(join(tmpdir(), 'gna-bench-drift-'));
const root = join(work, 'root');
const images = join(work, 'images');
mkdirSync(root);
for (const f of [...(osc.spec.files ?? []), ...(osc.status?.extensionFiles ?? [])]) {
  const ref = f.content.imageRef;
  if (!ref) continue;
  const path = join(images, encodeURIComponent(ref.image), ref.filePathInImage);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, Buffer.alloc(1 << 20, 1)); // a binary's worth of bytes
}
const systemd = new MemorySystemd();
const extractor = new DirectoryImageExtractor(images);
const apply = () =>
  applyOsc({ root, oscText, systemd, images: extractor, hostName: 'node-a', onNodeAgentRestart: 'continue' });
await apply();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
async function timed(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

const host = new HostRoot(root);
const managed = [...(osc.spec.files ?? []), ...(osc.status?.extensionFiles ?? [])].length;
const checkMs = await timed(() => detectDrift({ host, osc, systemd }));
const applyMs = await timed(apply);

// at rest: the watch on, the periodic check far away
const node = {
  metadata: { name: 'node-a', annotations: { 'node-configuration.gardener.cloud/failed-checksum': 'x' } },
};
const latencies: number[] = [];
let edited = 0;
const monitor = new DriftMonitor({
  root,
  systemd,
  images: extractor,
  node: () => node,
  recorder: {
    event: () => {
      if (edited) latencies.push(performance.now() - edited);
      edited = 0;
      return Promise.resolve();
    },
  },
  metrics: driftMetrics(new Registry()),
  hostName: 'node-a',
  intervalMs: 3_600_000,
});
await monitor.check();
global.gc?.();
const rssBefore = process.memoryUsage().rss;
const cpuBefore = process.cpuUsage();
await new Promise((r) => setTimeout(r, IDLE_MS));
const cpu = process.cpuUsage(cpuBefore);
const rssAfter = process.memoryUsage().rss;

// edit -> report: each edit a new drift (report only: the Node's rollout is halted), then the file
// is restored and checked, so the next edit is new again
const target = join(root, 'etc/sysctl.d/99-k8s-general.conf');
const original = readFileSync(target);
for (let i = 0; i < EDITS; i++) {
  edited = performance.now();
  writeFileSync(target, `# edit ${i}\n`);
  const deadline = Date.now() + 5_000;
  while (edited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
  edited = 0;
  writeFileSync(target, original);
  await new Promise((r) => setTimeout(r, 300)); // the restore's own check settles
  await monitor.trigger();
}
const watched = monitor.watching?.watchedDirectories ?? 0;
monitor.stop();
rmSync(work, { recursive: true, force: true });

const fixed = (n: number, d = 2) => n.toFixed(d);
if (quick) console.log(QUICK_NOTICE);
console.log(
  `pool ${poolName}: ${managed} files, ${(osc.spec.units ?? []).length} units, ${watched} watched directories`,
);
console.log(`full drift check: ${fixed(checkMs)} ms (median of ${ROUNDS})`);
console.log(`up-to-date apply of the same OSC (baseline, same run): ${fixed(applyMs)} ms`);
console.log(`ratio check / up-to-date apply: ${fixed(checkMs / applyMs)}`);
console.log(
  `at rest with the watch on, ${fixed(IDLE_MS / 1000, 1)} s: CPU ${fixed((cpu.user + cpu.system) / 1000)} ms, RSS ${fixed((rssAfter - rssBefore) / 2 ** 20)} MiB growth (process RSS ${fixed(rssAfter / 2 ** 20, 0)} MiB)`,
);
console.log(
  `edit -> reported: median ${fixed(median(latencies))} ms, max ${fixed(Math.max(0, ...latencies))} ms over ${latencies.length} of ${EDITS} edits`,
);
