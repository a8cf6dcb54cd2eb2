/**
 * The node agent authorizer: (1) its decision latency at 300 and 1,000 reviews per second
 * (p50/p99/max, measured by a load generator in its own process from each review's scheduled
 * time, and inside the authorizer) next to a baseline HTTPS server on the same certificate
 * answering a constant review, in interleaved rounds (the machine is shared: a round's load
 * average is reported with it); (2) what idle agents cost it behind a real kube-apiserver's
 * decision cache.
 * `npx tsx hack/bench/node-agent-authorizer.ts [--rounds 5] [--seconds 10] [--agents 5] [--idle 10m]
 *   > docs/benchmarks/node-agent-authorizer.out.txt`
 * At the defaults the latency rounds take about 4 minutes and the idle window 10 more (about
 * 15 minutes in all); `--quick` (one round of 1 s per rate, one agent idle for 5 s) about 40 s.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseGoDuration } from '../../api/index.js';
import { servingCertificate } from '../landscape/csr-signer.js';
import { stopAllEnvtests } from '../landscape/envtest.js';
import { measureIdle } from './node-agent-authorizer/idle.js';
import { type LatencyResult, measureLatency, reviewMix } from './node-agent-authorizer/latency.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';
import { Cleanups, ms, print, progress, quantile } from './support/run.js';

const { values, quick } = benchCommandLine({
  script: 'hack/bench/node-agent-authorizer.ts',
  duration:
    'About 15 minutes at the defaults (latency rounds about 4, the idle window 10); --quick (one 1 s round per rate, one agent idle 5 s) about 40 seconds.',
  options: {
    rounds: { type: 'string', default: '5', quick: '1' },
    seconds: { type: 'string', default: '10', quick: '1' },
    agents: { type: 'string', default: '5', quick: '1' },
    idle: { type: 'string', default: '10m', quick: '5s' },
    'skip-idle': { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const agents = Number(values.agents);
const idleMs = parseGoDuration(values.idle) / 1e6;

const cleanups = new Cleanups();
const tls = servingCertificate();
cleanups.push('serving certificate', () =>
  import('node:fs').then((fs) => fs.rmSync(tls.dir, { recursive: true })),
);

print(`# node agent authorizer benchmark, ${new Date().toISOString()}, node ${process.version}`);
if (quick) print(QUICK_NOTICE);
print(
  `# ${cpus().length} CPUs, load average at start ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
print();

try {
  const reviewsFile = join(tls.dir, 'reviews.json');
  writeFileSync(reviewsFile, JSON.stringify(reviewMix(4000)));
  const results: LatencyResult[] = [];
  for (const rate of [300, 1000]) {
    for (let round = 1; round <= rounds; round++) {
      for (const variant of ['baseline', 'authorizer'] as const) {
        progress(`${variant} at ${rate}/s, round ${round} of ${rounds}, ${seconds} s`);
        results.push(await measureLatency({ variant, rate, seconds, tls, reviewsFile }));
      }
    }
  }
  print('## Decision latency (ms; 300 nodes, 3 pools; 3 of 8 reviews denied)');
  print();
  print(
    'End to end: from the scheduled send to the answer, in a load generator of its own. Inside: from the complete request body to the answer written.',
  );
  print();
  print(
    '| rate/s | server | reviews | p50 | p99 | max | p99 per round | load avg per round | inside p50 / p99 / max |',
  );
  print('|---|---|---|---|---|---|---|---|---|');
  for (const rate of [300, 1000]) {
    for (const variant of ['baseline', 'authorizer'] as const) {
      const runs = results.filter((r) => r.rate === rate && r.variant === variant);
      const all = runs.flatMap((r) => r.latencies);
      const inside = runs.flatMap((r) => r.server);
      const failures = runs.reduce((a, r) => a + r.failures, 0);
      print(
        `| ${rate} | ${variant} | ${all.length}${failures ? ` (${failures} failed)` : ''} | ${ms(quantile(all, 0.5))} | ` +
          `${ms(quantile(all, 0.99))} | ${ms(Math.max(...all))} | ${runs.map((r) => ms(quantile(r.latencies, 0.99))).join(', ')} | ` +
          `${runs.map((r) => r.load.toFixed(1)).join(', ')} | ` +
          `${inside.length ? `${ms(quantile(inside, 0.5))} / ${ms(quantile(inside, 0.99))} / ${ms(Math.max(...inside))}` : '-'} |`,
      );
    }
  }
  const best = (rate: number, variant: string) =>
    Math.min(
      ...results
        .filter((r) => r.rate === rate && r.variant === variant)
        .map((r) => quantile(r.latencies, 0.99)),
    );
  print();
  print(
    `Quietest round at 300/s: authorizer p99 ${ms(best(300, 'authorizer'))} ms, baseline p99 ${ms(best(300, 'baseline'))} ms.`,
  );
  print();

  if (!values['skip-idle']) {
    const idle = await measureIdle({ agents, idleMs, tls, cleanups });
    const total = Object.values(idle.decisions).reduce((a, b) => a + b, 0);
    print(
      `## Idle agents behind the API server's decision cache (${idle.agents} agents, ${idle.idleSeconds.toFixed(0)} s)`,
    );
    print();
    print('| figure | value |');
    print('|---|---|');
    print(
      `| API requests of the agents | ${idle.requests} (${(idle.requests / idle.agents / idle.idleSeconds).toFixed(3)} per agent per second) |`,
    );
    print(
      `| webhook decisions | ${total} (${(total / idle.agents / idle.idleSeconds).toFixed(4)} per agent per second) |`,
    );
    for (const [k, v] of Object.entries(idle.decisions).sort()) print(`| decisions ${k} | ${v} |`);
    print();
  }
  print(
    `# load average at end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await cleanups.run();
  await stopAllEnvtests();
}
