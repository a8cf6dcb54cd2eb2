/**
 * Step 3/4, a kubelet configuration change: `maxPods` +10 in every pool (its plan shown first); each
 * agent applies its pool's new OSC after its node's delay from the node-delay controller. It
 * records who applied when, which units restarted, and the kubelet restarts per 1 s bucket.
 */
import { ANNOTATION, formatGoDuration, parseGoDuration, UNIT } from '../../../api/index.js';
import type { Landscape } from '../landscape.js';
import { describeOp } from '../node.js';
import { planPreview } from '../plan-preview.js';
import { type NodeResult, perSecondBuckets, type ScenarioResult } from '../scenario-result.js';
import type { ScenarioRun } from '../scenario-run.js';
import { poolSecrets, watchNodes, withLog } from '../shoot-reads.js';
import { until } from '../wait.js';

export type RolloutOutcome = ScenarioResult['rollout'] & {
  readonly nodes: ReadonlyMap<string, NodeResult['rollout']>;
};

export async function rollOutKubeletChange(run: ScenarioRun): Promise<RolloutOutcome> {
  run.heading(
    'rollout',
    `3/4 Kubelet configuration change, rolled out within the ${run.maxDelaySeconds} s window`,
  );
  const from = Date.now();
  const delays = await until(
    'a reconciliation delay on every node',
    async () => {
      const list = await run.landscape.shootCore.listNode();
      const m = new Map<string, number>();
      for (const n of list.items) {
        const text = n.metadata?.annotations?.[ANNOTATION.reconciliationDelay];
        if (text !== undefined) m.set(n.metadata?.name ?? '', parseGoDuration(text) / 1e6);
      }
      return run.nodes.every((n) => m.has(n.name)) ? m : undefined;
    },
    { timeoutMs: 60_000, signal: run.signal },
  );
  run.emit(
    'step',
    `per-node delays from the node-delay controller: ${[...run.nodes]
      .sort((a, b) => (delays.get(a.name) ?? 0) - (delays.get(b.name) ?? 0))
      .map((n) => `${n.name} ${formatGoDuration((delays.get(n.name) ?? 0) * 1e6)}`)
      .join(', ')}`,
  );
  const marks = new Map(run.nodes.map((n) => [n.name, { ops: n.ops().length, log: n.logSize() }]));
  const before = await poolSecrets(run.landscape);
  let change = '';
  const changeShoot = (s: Parameters<Parameters<Landscape['patchShoot']>[0]>[0]) => {
    const parts: string[] = [];
    s.spec.kubernetes.kubelet = s.spec.kubernetes.kubelet ?? {};
    const kubelet = s.spec.kubernetes.kubelet;
    kubelet.maxPods = (kubelet.maxPods ?? 110) + 10;
    parts.push(`shoot kubelet maxPods ${kubelet.maxPods - 10} -> ${kubelet.maxPods}`);
    for (const w of s.spec.provider.workers as {
      name: string;
      kubernetes?: { kubelet?: { maxPods?: number } };
    }[]) {
      const own = w.kubernetes?.kubelet;
      if (!own) continue;
      own.maxPods = (own.maxPods ?? 110) + 10;
      parts.push(`${w.name}'s own kubelet maxPods ${own.maxPods - 10} -> ${own.maxPods}`);
    }
    change = parts.join(', ');
  };
  const live = await run.landscape.cluster();
  const changed = structuredClone(live);
  changeShoot(changed.spec.shoot);
  for (const line of planPreview(live, changed)) run.emit('step', `plan: ${line}`);
  await run.landscape.patchShoot(changeShoot);
  const changedAt = Date.now();
  run.emit('step', `changed the Cluster: ${change}`);
  let firstChangeSeenAt: number | undefined;
  const after = await until(
    "every pool's OSC secret to change",
    async () => {
      const now = await poolSecrets(run.landscape);
      const changed = [...before].filter(
        ([pool, s]) => now.get(pool) && now.get(pool)?.checksum !== s.checksum,
      );
      if (changed.length > 0) firstChangeSeenAt ??= Date.now();
      return changed.length === before.size ? now : undefined;
    },
    { timeoutMs: 90_000, signal: run.signal, intervalMs: 100 },
  ).catch(withLog(run.controllerManager!, run.controllerManagerLog));
  run.emit(
    'step',
    `the OSC secrets changed (${[...after.values()].map((p) => `${p.pool} ${p.checksum.slice(0, 8)}`).join(', ')}); each agent waits its delay`,
  );
  const rolloutReported = new Map<string, number>();
  await watchNodes({
    what: "every node to apply its pool's new OSC",
    landscape: run.landscape,
    nodes: run.nodes,
    signal: run.signal,
    timeoutMs: run.maxDelaySeconds * 1000 + 120_000,
    done: (node, n) =>
      n.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData] === after.get(node.spec.pool)?.checksum,
    onDone: (node, at) => {
      rolloutReported.set(node.name, at);
      const mark = marks.get(node.name)!;
      const restarts = node.ops(mark.ops).filter((op) => op.op === 'restart');
      const enqueued = node
        .logEntries(mark.log)
        .find((e) => e.msg === 'Enqueued secret with operating system config with a jitter period');
      run.emit(
        'node',
        `applied after waiting ${enqueued ? formatGoDuration(Number(enqueued.delayMs) * 1e6) : '?'} (${node.spec.pool}, ${node.spec.zone}): ${restarts.map(describeOp).join(', ') || 'nothing restarted'}`,
        node.name,
      );
    },
    progress: (k) => run.emit('progress', `rollout: ${k}/${run.nodes.length} nodes applied`),
  });
  const rolloutResults = new Map<string, NodeResult['rollout']>();
  for (const node of run.nodes) {
    const mark = marks.get(node.name)!;
    const ops = node.ops(mark.ops);
    const entries = node.logEntries(mark.log);
    const enqueued = entries.find(
      (e) => e.msg === 'Enqueued secret with operating system config with a jitter period',
    );
    const firstOp = ops.find((op) => op.at);
    rolloutResults.set(node.name, {
      delayMs: delays.get(node.name) ?? Number.NaN,
      enqueuedAt: enqueued ? run.since(Date.parse(String(enqueued.time))) : Number.NaN,
      enqueuedDelayMs: enqueued ? Number(enqueued.delayMs) : Number.NaN,
      appliedAt: firstOp?.at ? run.since(Date.parse(firstOp.at)) : Number.NaN,
      reportedAt: run.since(rolloutReported.get(node.name) ?? Number.NaN),
      restarts: ops
        .filter((op) => op.op === 'restart' && 'unit' in op)
        .map((op) => ({ unit: 'unit' in op ? op.unit : '', at: run.since(Date.parse(op.at ?? '')) })),
      checksumOk: true,
    });
  }
  // t = 0 of the rollout: the first sign of the changed secrets (the demo polls, the agents watch)
  const secretsChangedAt = Math.min(
    firstChangeSeenAt ?? Date.now(),
    ...[...rolloutResults.values()].map((r) => r.enqueuedAt + run.startedAt).filter(Number.isFinite),
  );
  const applied = [...rolloutResults.values()].map((r) => r.appliedAt);
  const spanMs = Math.max(...applied) - Math.min(...applied);
  const kubeletRestarts = [...rolloutResults.values()].flatMap((r) =>
    r.restarts.filter((x) => x.unit === UNIT.kubelet).map((x) => x.at),
  );
  const buckets = perSecondBuckets(kubeletRestarts, run.since(secretsChangedAt));
  const maxPerSecond = Math.max(0, ...buckets);
  run.emit(
    'step',
    `rollout done: applies spread over ${(spanMs / 1000).toFixed(1)} s, at most ${maxPerSecond} kubelet restart(s) in any 1 s bucket`,
  );
  run.phases.rollout = { from: run.since(from), to: run.since(Date.now()) };
  return {
    change,
    changedAt: run.since(changedAt),
    secretsChangedAt: run.since(secretsChangedAt),
    spanMs,
    kubeletRestartsPerSecond: buckets,
    maxKubeletRestartsInOneSecond: maxPerSecond,
    nodes: rolloutResults,
  };
}
