/** The node agent benchmark's report (stdout): calibrations, latency, memory, requests. */
import { cpus } from 'node:os';
import type { ApiRequest } from '../support/audit.js';
import { CLK_TCK, type ProcMemory } from '../support/process.js';
import { mean, mib, ms, print, quantile, thousands } from '../support/run.js';
import type { Phase, SteadyState, UpdateSample, Updates } from './measure.js';
import { OPTIONS } from './options.js';
import { PROBE_UNIT } from './osc-probe.js';

export interface Figures {
  readonly bareNode: ProcMemory;
  readonly clientNode: ProcMemory;
  readonly clientNodeBundled: ProcMemory;
  readonly otherDepsBundled: ProcMemory;
  readonly tsxNodeRss: number | undefined;
  readonly composition: { total: number; parts: [string, number][] };
  readonly getSmall: number[];
  readonly getBig: number[];
  readonly clientNodeGets: { times: number[]; connections: number };
  readonly fsyncTimes: number[];
  readonly firstApplyMs: number;
  readonly startsForFirstApply: number;
  readonly idle: { rssKiB: number; memory: ProcMemory; heap: Record<string, number> | undefined };
  readonly smallUpdates: Updates;
  readonly rssAfterSmallUpdates: number;
  readonly populated: { nodesMs: number; secretsMs: number };
  readonly rssAfterPopulate: number;
  readonly bigSamples: number[];
  readonly bigUpdates: Updates;
  readonly window: SteadyState;
  readonly exitCode: number | null;
  readonly agentStarts: number;
  readonly username: string;
  readonly requests: ApiRequest[];
  readonly phases: readonly Phase[];
}

const selectorOf = (uri: string) => {
  const q = new URL(`http://x${uri}`).searchParams;
  return [q.get('fieldSelector'), q.get('labelSelector')].filter(Boolean).join(',') || '(no selector)';
};

export function report(f: Figures): void {
  const { bareNode, clientNode, clientNodeBundled, otherDepsBundled, tsxNodeRss, composition } = f;
  const { getSmall, getBig, clientNodeGets, fsyncTimes, firstApplyMs, startsForFirstApply } = f;
  const { smallUpdates, rssAfterSmallUpdates, rssAfterPopulate, bigSamples, bigUpdates, exitCode } = f;
  const { agentStarts, username, requests, phases } = f;
  const bareNodeRss = bareNode.rssKiB;
  const idleRss = f.idle.rssKiB;
  const idleMemory = f.idle.memory;
  const heapIdle = f.idle.heap;
  const { nodesMs, secretsMs } = f.populated;
  const windowStart = f.window.start;
  const windowEnd = f.window.end;
  const windowRss = f.window.rss;
  const cpuWindow = f.window.cpuS;
  const hwm = f.window.hwmKiB;
  const heapEnd = f.window.heapEnd;
  const endMemory = f.window.endMemory;
  const endRss = endMemory.rssKiB;
  const restartsInWindow = f.window.restarts;
  const load1 = f.window.load;

  const windowS = (windowEnd - windowStart) / 1000;
  const perHour = (n: number) => (n * 3600) / windowS;

  print();
  print('## Calibrations (same run)');
  print();
  print('| calibration | value |');
  print('|---|---|');
  const split = (m: ProcMemory) => `${mib(m.rssKiB)} MiB (anon ${mib(m.anonKiB)}, file ${mib(m.fileKiB)})`;
  print(`| RSS of a bare \`node -e\` process doing nothing | ${split(bareNode)} |`);
  print(`| RSS of \`node\` that imports @kubernetes/client-node and does nothing | ${split(clientNode)} |`);
  print(
    `| RSS of a bundle of only the client-node parts the agent used to import (KubeConfig, CoreV1Api, CoordinationV1Api, ...), idle | ${split(clientNodeBundled)} |`,
  );
  print(
    `| RSS of a bundle of the agent's other dependencies (pino, zod, yaml, prom-client, commander), idle | ${split(otherDepsBundled)} |`,
  );
  if (tsxNodeRss !== undefined)
    print(`| RSS of \`node --import tsx -e\` doing nothing | ${mib(tsxNodeRss)} MiB |`);
  print(
    `| GET of the OSC secret via undici (keep-alive, admin), small cluster: p50 / p99 | ${ms(quantile(getSmall, 0.5))} / ${ms(quantile(getSmall, 0.99))} ms |`,
  );
  print(
    `| same GET via @kubernetes/client-node CoreV1Api (the agent's client for Node, events and Lease before runtime/kube's KubeClient): p50 / p99; TLS connections opened | ` +
      `${ms(quantile(clientNodeGets.times, 0.5))} / ${ms(quantile(clientNodeGets.times, 0.99))} ms; ` +
      `${clientNodeGets.connections} for ${clientNodeGets.times.length} sequential GETs |`,
  );
  print(
    `| same GET with ${thousands(OPTIONS.nodes)} Nodes + ${thousands(OPTIONS.secrets)} Secrets: p50 / p99 | ${ms(quantile(getBig, 0.5))} / ${ms(quantile(getBig, 0.99))} ms |`,
  );
  print(
    `| atomic 1 KiB write as the agent does it (temp file, fsync, rename, dir fsync), same filesystem: p50 / p99 | ${ms(quantile(fsyncTimes, 0.5))} / ${ms(quantile(fsyncTimes, 0.99))} ms |`,
  );

  print();
  print('## Latency: OSC secret update to the last systemd call (reconciliation delay 0)');
  print();
  print(
    'Each update is a merge PATCH of the OSC secret (osc.yaml + checksum/data-script) that changes the content of ' +
      `${PROBE_UNIT}; the next one is sent 200 ms after the agent has reported its verdict on the Node (after its ` +
      `apply settle time, ${OPTIONS.applySettle}: an update sent earlier waits for that verdict). Times are from just before ` +
      'the PATCH is sent. "last systemd call (fs.watch)" is the primary figure: the bench watches the ' +
      '--systemd=record file with fs.watch and reads each appended line at once, timestamped with ' +
      'performance.now() (sub-ms; it lags the write by the inotify wake-up of an otherwise idle process). ' +
      'The file mtime (kernel clock, tick granularity) and the agent\'s own log line "Successfully applied ' +
      'operating system config" (ms; written after the last call, the last-applied file and the progress file) ' +
      'bound it from both sides.',
  );
  const latencyRows = ({
    samples,
    cpuS,
    load,
  }: {
    samples: UpdateSample[];
    cpuS: number;
    load: { start: number; end: number };
  }) => {
    const last = samples.map((s) => s.lastOpWatch - s.send);
    const rows: [string, number[]][] = [
      ['PATCH response received', samples.map((s) => s.response - s.send)],
      ["bench's own watch sees the update (calibration)", samples.map((s) => s.benchWatch - s.send)],
      ['agent logs "Enqueued" (agent clock, ms)', samples.map((s) => s.agentEnqueued - s.send)],
      ['**last systemd call (fs.watch)**', samples.map((s) => s.lastOpWatch - s.send)],
      [
        '(in the agent: its "Enqueued" log → last systemd call)',
        samples.map((s) => s.lastOpWatch - s.agentEnqueued),
      ],
      ['last systemd call (file mtime)', samples.map((s) => s.lastOpMtime - s.send)],
      ['agent logs "Successfully applied" (ms)', samples.map((s) => s.appliedLog - s.send)],
      ["bench's watch sees the Node checksum", samples.map((s) => s.nodeSeen - s.send)],
      [
        `bench's watch sees the verdict (after the ${OPTIONS.applySettle} settle time)`,
        samples.map((s) => s.verdictSeen - s.send),
      ],
    ];
    print('| from sending the update to ... (ms) | p50 | p99 | max | mean |');
    print('|---|---|---|---|---|');
    for (const [name, xs] of rows) {
      const ok = xs.filter(Number.isFinite);
      print(
        `| ${name} | ${ms(quantile(ok, 0.5))} | ${ms(quantile(ok, 0.99))} | ${ms(Math.max(...ok))} | ${ms(mean(ok))} |` +
          (ok.length < xs.length ? ` (${xs.length - ok.length} missing)` : ''),
      );
    }
    const opShapes = new Map<string, number>();
    for (const s of samples) opShapes.set(s.ops.join(', '), (opShapes.get(s.ops.join(', ')) ?? 0) + 1);
    print();
    print(
      `systemd calls per update: ${[...opShapes].map(([shape, n]) => `[${shape}] ×${n}`).join('; ')}` +
        `; lines timestamped by the fallback poll instead of fs.watch: ${samples.filter((s) => s.polled).length}`,
    );
    print(
      `updates whose last systemd call came more than 1 s after sending: ${last.filter((x) => x > 1000).length} of ${samples.length}; ` +
        `load average at the start / end of the phase: ${load.start.toFixed(2)} / ${load.end.toFixed(2)} on ${cpus().length} CPUs`,
    );
    print(
      `agent CPU (user + system) over the phase: ${((cpuS * 1000) / samples.length).toFixed(1)} ms per update ` +
        `(the process's CPU clock ticks every ${(1000 / CLK_TCK).toFixed(0)} ms)`,
    );
    const gap = samples.map((s) => s.lastOpWatch - s.lastOpMtime);
    print(
      `fs.watch time minus mtime of the last call: p50 ${ms(quantile(gap, 0.5))} ms, min ${ms(Math.min(...gap))}, max ${ms(Math.max(...gap))}`,
    );
    const getP50 = quantile(getSmall, 0.5);
    const watchP50 = quantile(
      samples.map((s) => s.benchWatch - s.send),
      0.5,
    );
    print(
      `ratios: last systemd call p50 = ${(quantile(last, 0.5) / getP50).toFixed(1)}× the GET roundtrip p50, ` +
        `${(quantile(last, 0.5) / watchP50).toFixed(1)}× the bench's own watch delivery p50; ` +
        `target p99 < 1000 ms: ${quantile(last, 0.99) < 1000 ? 'met' : 'MISSED'} (${ms(quantile(last, 0.99))} ms)`,
    );
  };
  print();
  print(`### Small cluster (${OPTIONS.updates} updates)`);
  print();
  latencyRows(smallUpdates);
  print();
  print(
    `### With ${thousands(OPTIONS.nodes)} Nodes + ${thousands(OPTIONS.secrets)} Secrets in the cluster (${OPTIONS.updates} updates)`,
  );
  print();
  latencyRows(bigUpdates);

  print();
  print('## Memory of the agent process (VmRSS from /proc/<pid>/status)');
  print();
  print('| when | RSS MiB | ÷ bare node |');
  print('|---|---|---|');
  const rssRow = (name: string, kib: number) =>
    print(`| ${name} | ${mib(kib)} | ${(kib / bareNodeRss).toFixed(2)}× |`);
  rssRow(`idle after the first apply + ${OPTIONS.settle} (median of 10 samples)`, idleRss);
  rssRow(`after ${OPTIONS.updates} updates`, rssAfterSmallUpdates);
  rssRow(
    `right after creating ${thousands(OPTIONS.nodes)} Nodes + ${thousands(OPTIONS.secrets)} Secrets`,
    rssAfterPopulate,
  );
  rssRow(`large cluster + ${OPTIONS.settle} (median of 10 samples)`, quantile(bigSamples, 0.5));
  rssRow(`window, min (${windowRss.length} samples)`, Math.min(...windowRss));
  rssRow('window, median', quantile(windowRss, 0.5));
  rssRow('window, max', Math.max(...windowRss));
  rssRow('end of the window', endRss);
  rssRow('peak (VmHWM) of the process', hwm);
  print();
  print(
    `anonymous / file-backed RSS (MiB): idle ${mib(idleMemory.anonKiB)} / ${mib(idleMemory.fileKiB)}, ` +
      `end of the window ${mib(endMemory.anonKiB)} / ${mib(endMemory.fileKiB)}; bare node ` +
      `${mib(bareNode.anonKiB)} / ${mib(bareNode.fileKiB)}`,
  );
  print();
  const pct = (x: number, base: number) => `${x >= base ? '+' : ''}${((x / base - 1) * 100).toFixed(1)}%`;
  const heapRow = (name: string, h: Record<string, number> | undefined) =>
    print(
      h
        ? `| ${name} | ${mib(h.heapUsed! / 1024)} | ${mib(h.heapTotal! / 1024)} | ${mib(h.external! / 1024)} | ${mib(h.rss! / 1024)} |`
        : `| ${name} | - | - | - | - |`,
    );
  print("the agent's own /metrics (prom-client default metrics), MiB:");
  print();
  print('| when | V8 heap used | V8 heap total | external | RSS |');
  print('|---|---|---|---|---|');
  heapRow('idle', heapIdle);
  heapRow('end of the window', heapEnd);
  print();
  print(
    `the agent bundle is ${(composition.total / 1e6).toFixed(2)} MB of JavaScript; largest parts: ` +
      composition.parts
        .slice(0, 8)
        .map(([part, bytes]) => `${part} ${(bytes / 1e6).toFixed(2)} MB`)
        .join(', '),
  );
  print();
  print(
    `idle target < 70 MiB: ${idleRss < 70 * 1024 ? 'met' : 'MISSED'}; cluster size: RSS after creating the objects ` +
      `+ ${OPTIONS.settle} vs just before creating them ${pct(quantile(bigSamples, 0.5), rssAfterSmallUpdates)}, ` +
      `window median vs idle (with ${2 * OPTIONS.updates} applies in between) ${pct(quantile(windowRss, 0.5), idleRss)}` +
      (OPTIONS.agentMode === 'tsx' && tsxNodeRss !== undefined
        ? `; under tsx the loader alone is ${mib(tsxNodeRss)} MiB`
        : OPTIONS.agentMode === 'executable'
          ? '; the agent runs as a single executable, as on a node'
          : '; the agent runs from the esbuild bundle that ships inside the executable'),
  );
  print(
    `agent starts: ${startsForFirstApply} for the first apply (the OSC installs its own unit, so it restarts itself once, ` +
      `as on a new node), ${agentStarts - startsForFirstApply} later; restarts in the window: ${restartsInWindow}; ` +
      `exit code on SIGTERM: ${exitCode}`,
  );
  print(
    `agent CPU in the window: ${cpuWindow.toFixed(2)} s over ${windowS.toFixed(0)} s ` +
      `(${((cpuWindow / windowS) * 100).toFixed(2)}% of one core, ${perHour(cpuWindow).toFixed(1)} CPU s per hour)`,
  );

  print();
  print(`## API requests by ${username} in the steady-state window`);
  print();
  print(
    `window ${windowS.toFixed(0)} s with ${thousands(OPTIONS.nodes)} Nodes + ${thousands(OPTIONS.secrets)} Secrets in the cluster, ` +
      'no updates; counted from the audit log (stage RequestReceived), extrapolated to an hour',
  );
  const inWindow = requests.filter((r) => r.at >= windowStart && r.at < windowEnd);
  const byKey = new Map<string, ApiRequest[]>();
  for (const r of inWindow) {
    const key = `${r.verb} ${r.resource}`;
    byKey.set(key, [...(byKey.get(key) ?? []), r]);
  }
  const expectation = (key: string): string => {
    if (key === 'update coordination.k8s.io/leases') return '360 (one renewal per 10 s)';
    if (key.startsWith('watch ')) return '≤ 12 per watched object';
    return '0';
  };
  print();
  print('| verb resource | in window | per hour | expected per hour | response codes |');
  print('|---|---|---|---|---|');
  for (const [key, rs] of [...byKey].sort((a, b) => b[1].length - a[1].length)) {
    const codes = new Map<string, number>();
    for (const r of rs) codes.set(String(r.code ?? 'open'), (codes.get(String(r.code ?? 'open')) ?? 0) + 1);
    print(
      `| ${key} | ${rs.length} | ${perHour(rs.length).toFixed(0)} | ${expectation(key)} | ` +
        `${[...codes].map(([c, n]) => `${c}×${n}`).join(' ')} |`,
    );
  }
  print(`| **total** | ${inWindow.length} | ${perHour(inWindow.length).toFixed(0)} | ≈ 360 + watches | |`);
  const watches = new Map<string, number>();
  for (const r of inWindow.filter((r) => r.verb === 'watch')) {
    const key = `${r.resource} ${selectorOf(r.uri)}`;
    watches.set(key, (watches.get(key) ?? 0) + 1);
  }
  print();
  print('| watched object | watches opened in window | per hour (expected ≤ 12) |');
  print('|---|---|---|');
  for (const [key, n] of [...watches].sort()) print(`| ${key} | ${n} | ${perHour(n).toFixed(1)} |`);
  print();
  print(
    'A watch ends after the timeoutSeconds it asks for (random in 300..600 s), so a short window quantises ' +
      'watch counts: over 10 minutes each watch is opened 1 or 2 times.',
  );

  print();
  print('## Requests by the agent per phase');
  print();
  print('| phase | seconds | requests | by verb |');
  print('|---|---|---|---|');
  for (const p of phases) {
    const rs = requests.filter((r) => r.at >= p.start && r.at < p.end);
    const verbs = new Map<string, number>();
    for (const r of rs) verbs.set(`${r.verb} ${r.resource}`, (verbs.get(`${r.verb} ${r.resource}`) ?? 0) + 1);
    print(
      `| ${p.name} | ${((p.end - p.start) / 1000).toFixed(1)} | ${rs.length} | ` +
        `${[...verbs]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${k} ×${n}`)
          .join(', ')} |`,
    );
  }
  print();
  print(
    `first apply: ${(firstApplyMs / 1000).toFixed(2)} s from starting the agent to the Node checksum; ` +
      `created ${thousands(OPTIONS.nodes)} Nodes in ${(nodesMs / 1000).toFixed(1)} s and ${thousands(OPTIONS.secrets)} Secrets in ` +
      `${(secretsMs / 1000).toFixed(1)} s; load average at the end ${load1.map((l) => l.toFixed(2)).join(' / ')}`,
  );
}
