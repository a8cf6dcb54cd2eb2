/**
 * Step 3/4, a kubelet configuration change: `maxPods` +10 in every pool (its plan shown first),
 * let out by the controller-manager's rollout gate in waves per pool: a canary in one zone, then
 * growing waves, each once the one before stayed healthy for the settle time (docs/rollout.md).
 * With `--break-rollout` the change is a bad one instead (steps/bad-rollout.ts). It records the
 * waves, who got the change when, what restarted, and the kubelet restarts per 1 s bucket.
 */
import { ANNOTATION, formatGoDuration, parseGoDuration, UNIT } from '../../../api/index.js';
import type { Landscape } from '../landscape.js';
import { DEMO_ROLLOUT, DEMO_SETTLE_MS } from '../landscape.js';
import { planPreview } from '../plan-preview.js';
import { rolloutStart, watchGatedRollout } from '../rollout-watch.js';
import {
  type NodeResult,
  perSecondBuckets,
  type RolloutChange,
  type ScenarioResult,
} from '../scenario-result.js';
import type { ScenarioRun } from '../scenario-run.js';
import { type PoolSecret, poolSecrets, withLog } from '../shoot-reads.js';
import { until } from '../wait.js';

export type RolloutOutcome = ScenarioResult['rollout'] & {
  readonly nodes: ReadonlyMap<string, NodeResult['rollout']>;
};

type Shoot = Parameters<Parameters<Landscape['patchShoot']>[0]>[0];
type Worker = { name: string; kubernetes?: { kubelet?: { maxPods?: number } } };

/** Sets the shoot's and every pool's own kubelet maxPods to `to(current)`; says what it did. */
export function kubeletMaxPods(to: (current: number) => number): (s: Shoot) => string {
  return (s) => {
    const parts: string[] = [];
    s.spec.kubernetes.kubelet = s.spec.kubernetes.kubelet ?? {};
    const kubelet = s.spec.kubernetes.kubelet;
    const from = kubelet.maxPods ?? 110;
    kubelet.maxPods = to(from);
    parts.push(`shoot kubelet maxPods ${from} -> ${kubelet.maxPods}`);
    for (const w of s.spec.provider.workers as Worker[]) {
      const own = w.kubernetes?.kubelet;
      if (!own) continue;
      const was = own.maxPods ?? 110;
      own.maxPods = to(was);
      parts.push(`${w.name}'s own kubelet maxPods ${was} -> ${own.maxPods}`);
    }
    return parts.join(', ');
  };
}

export interface ClusterChange {
  readonly change: string;
  readonly changedAt: number;
  /** When the demo first saw a changed OSC secret. */
  readonly firstSecretAt: number;
  /** The new checksum of each pool. */
  readonly targets: ReadonlyMap<string, string>;
  readonly secrets: ReadonlyMap<string, PoolSecret>;
}

/** Changes the Cluster (showing the plan first) and waits for every pool's OSC secret to follow. */
export async function changeCluster(run: ScenarioRun, mutate: (s: Shoot) => string): Promise<ClusterChange> {
  const before = await poolSecrets(run.landscape);
  const live = await run.landscape.cluster();
  const changed = structuredClone(live);
  mutate(changed.spec.shoot);
  for (const line of planPreview(live, changed)) run.emit('step', `plan: ${line}`);
  let change = '';
  await run.landscape.patchShoot((s) => {
    change = mutate(s);
  });
  const changedAt = Date.now();
  run.emit('step', `changed the Cluster: ${change}`);
  let firstSecretAt: number | undefined;
  const secrets = await until(
    "every pool's OSC secret to change",
    async () => {
      const now = await poolSecrets(run.landscape);
      const moved = [...before].filter(
        ([pool, s]) => now.get(pool) && now.get(pool)?.checksum !== s.checksum,
      );
      if (moved.length > 0) firstSecretAt ??= Date.now();
      return moved.length === before.size ? now : undefined;
    },
    { timeoutMs: 90_000, signal: run.signal, intervalMs: 100 },
  ).catch(withLog(run.controllerManager!, run.controllerManagerLog));
  run.emit(
    'step',
    `the OSC secrets changed (${[...secrets.values()].map((p) => `${p.pool} ${p.checksum.slice(0, 8)}`).join(', ')}); the rollout gate lets the change out in waves`,
  );
  return {
    change,
    changedAt: run.since(changedAt),
    firstSecretAt: run.since(firstSecretAt ?? changedAt),
    targets: new Map([...secrets].map(([pool, s]) => [pool, s.checksum])),
    secrets,
  };
}

/** The node-delay controller's delay of every node (ms): the order of nodes within a wave. */
export async function nodeDelays(run: ScenarioRun): Promise<Map<string, number>> {
  return until(
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
}

/** The outcome of the step from its rollouts (the first one is the change the chart starts with). */
export function rolloutOutcome(
  run: ScenarioRun,
  o: {
    mode: 'healthy' | 'broken';
    change: ClusterChange;
    changes: readonly RolloutChange[];
    delays: ReadonlyMap<string, number>;
    bad?: ScenarioResult['rollout']['bad'];
  },
): RolloutOutcome {
  const first = o.changes[0]!;
  const kubeletRestarts = [...first.nodes.values()].flatMap((n) =>
    n.restarts.filter((r) => r.unit === UNIT.kubelet).map((r) => r.at),
  );
  const spanMs = kubeletRestarts.length > 0 ? Math.max(...kubeletRestarts) - Math.min(...kubeletRestarts) : 0;
  const buckets = perSecondBuckets(kubeletRestarts, o.change.firstSecretAt);
  const nodes = new Map<string, NodeResult['rollout']>();
  for (const node of run.nodes)
    nodes.set(node.name, {
      delayMs: o.delays.get(node.name) ?? Number.NaN,
      changes: o.changes.map((c) => c.nodes.get(node.name)!),
      checksumOk: true,
    });
  return {
    mode: o.mode,
    change: o.change.change,
    changedAt: o.change.changedAt,
    secretsChangedAt: o.change.firstSecretAt,
    settleMs: DEMO_SETTLE_MS,
    canary: DEMO_ROLLOUT.canary,
    changes: o.changes,
    ...(o.bad ? { bad: o.bad } : {}),
    spanMs,
    kubeletRestartsPerSecond: buckets,
    maxKubeletRestartsInOneSecond: Math.max(0, ...buckets),
    nodes,
  };
}

export async function rollOutKubeletChange(run: ScenarioRun): Promise<RolloutOutcome> {
  run.heading(
    'rollout',
    `3/4 Kubelet configuration change, in waves behind the health gate (canary ${DEMO_ROLLOUT.canary}, growth ${DEMO_ROLLOUT.growth}, at most ${DEMO_ROLLOUT.maxPerWave} of a pool per wave, settle ${DEMO_ROLLOUT.settleTime})`,
  );
  const from = Date.now();
  const delays = await nodeDelays(run);
  run.emit(
    'step',
    `per-node delays from the node-delay controller (the order within a wave): ${[...run.nodes]
      .sort((a, b) => (delays.get(a.name) ?? 0) - (delays.get(b.name) ?? 0))
      .map((n) => `${n.name} ${formatGoDuration((delays.get(n.name) ?? 0) * 1e6)}`)
      .join(', ')}`,
  );
  const start = await rolloutStart(run);
  const change = await changeCluster(
    run,
    kubeletMaxPods((n) => n + 10),
  );
  const rollout = await watchGatedRollout(run, {
    start,
    label: 'kubelet change',
    targets: change.targets,
    until: 'completed',
    timeoutMs: 240_000,
  });
  const outcome = rolloutOutcome(run, { mode: 'healthy', change, changes: [rollout], delays });
  const perPool = [...rollout.pools.keys()]
    .map(
      (pool) =>
        `${pool} ${rollout.waves
          .filter((w) => w.pool === pool)
          .map((w) => w.nodes.length)
          .join('+')}`,
    )
    .join(', ');
  run.emit(
    'step',
    `rollout done: waves per pool ${perPool}; kubelet restarts spread over ${(outcome.spanMs / 1000).toFixed(1)} s, at most ${outcome.maxKubeletRestartsInOneSecond} in any 1 s bucket`,
  );
  run.phases.rollout = { from: run.since(from), to: run.since(Date.now()) };
  return outcome;
}
