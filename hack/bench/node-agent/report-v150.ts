/**
 * The report's last section: the v1.150.0 pool's agent beside the v1.91.4 pool's, from the same
 * run and the same small cluster (v150-pool.ts), each figure with the ratio v1.150.0 / v1.91.4.
 */
import { mib, ms, print, quantile } from '../support/run.js';
import type { Updates } from './measure.js';
import { OPTIONS } from './options.js';
import { RECORDED_CONTAINERD_VERSION, type V150Figures } from './v150-pool.js';

export interface V191Figures {
  readonly secretName: string;
  readonly firstApplyMs: number;
  readonly idle: { readonly rssKiB: number };
  readonly smallUpdates: Updates;
}

const toLastCall = (u: Updates) => u.samples.map((s) => s.lastOpWatch - s.send);
const inAgent = (u: Updates) => u.samples.map((s) => s.lastOpWatch - s.agentEnqueued).filter(Number.isFinite);
const cpuPerUpdateMs = (u: Updates) => (u.cpuS * 1000) / u.samples.length;
const shapes = (u: Updates) => {
  const counts = new Map<string, number>();
  for (const s of u.samples) counts.set(s.ops.join(', '), (counts.get(s.ops.join(', ')) ?? 0) + 1);
  return [...counts].map(([shape, n]) => `[${shape}] ×${n}`).join('; ');
};

export function reportV150(v191: V191Figures, v150: V150Figures | undefined): void {
  print();
  print('## The v1.150.0 pool beside the v1.91.4 pool (same run, small cluster)');
  print();
  if (!v150) {
    print(
      `not measured with --identity ${OPTIONS.identity}: gardenlet v1.150.0 renders agents with per-node identities only (run with --identity node)`,
    );
    return;
  }
  print(
    `The same worker pool as gardenlet v1.150.0 renders it (${v150.secretName}, examples/cluster-v1.150.yaml) and as v1.91.4 ` +
      `does (${v191.secretName}), each with the probe unit, applied by its own agent process: the v1.150.0 agent is started after ` +
      `the v1.91.4 agent's small-cluster updates and stopped before the cluster grows, with the recorded containerd ` +
      `${RECORDED_CONTAINERD_VERSION} (--containerd recorded:VERSION:FILE), whose restarts go to the recording systemd.`,
  );
  print();
  print('| figure | v1.91.4 pool | v1.150.0 pool | v1.150.0 / v1.91.4 |');
  print('|---|---|---|---|');
  const row = (name: string, a: number, b: number, format: (x: number) => string) =>
    print(`| ${name} | ${format(a)} | ${format(b)} | ${(b / a).toFixed(2)}× |`);
  for (const [q, name] of [
    [0.5, 'p50'],
    [0.9, 'p90'],
  ] as const)
    row(
      `update → last systemd call (fs.watch), ${name} (ms)`,
      quantile(toLastCall(v191.smallUpdates), q),
      quantile(toLastCall(v150.smallUpdates), q),
      ms,
    );
  row(
    'in the agent: its "Enqueued" log → last systemd call, p50 (ms)',
    quantile(inAgent(v191.smallUpdates), 0.5),
    quantile(inAgent(v150.smallUpdates), 0.5),
    ms,
  );
  row(
    'agent CPU per update (ms)',
    cpuPerUpdateMs(v191.smallUpdates),
    cpuPerUpdateMs(v150.smallUpdates),
    (x) => x.toFixed(1),
  );
  row(
    `idle RSS after the first apply + ${OPTIONS.settle}, median of 10 samples (MiB)`,
    v191.idle.rssKiB,
    v150.idle.rssKiB,
    mib,
  );
  row(
    'first apply: starting the agent → Node checksum (s)',
    v191.firstApplyMs / 1000,
    v150.firstApplyMs / 1000,
    (x) => x.toFixed(2),
  );
  print();
  print(
    `containerd at the v1.150.0 pool's first apply: config.toml written (${v150.containerd.configTomlBytes} bytes), ` +
      `containerd.service restarted ${v150.containerd.restarts}×`,
  );
  print(`systemd calls per update, v1.150.0 pool: ${shapes(v150.smallUpdates)}`);
  print(
    `v1.150.0 agent: ${v150.startsForFirstApply} start(s) for the first apply, exit code on SIGTERM ${v150.exitCode}; ` +
      `${v150.smallUpdates.samples.length} updates each`,
  );
}
