/**
 * Watching a rollout behind the gate (docs/rollout.md) from outside, as an operator would: per pool
 * the status ConfigMap `gardener-node-agent-rollout` (waves and their nodes, halted or completed),
 * per node its permission, its report and the systemd calls its agent recorded. Tells the timeline
 * as it goes and returns what happened, for the summary, the chart and the checks.
 */
import {
  ANNOTATION,
  PERMITTED_CHECKSUM_ANNOTATION,
  ROLLOUT_STATUS_CONFIGMAP,
  readApplyReport,
} from '../../api/index.js';
import { decodeRolloutStatus, type PoolRollout } from '../../controllers/rollout/state.js';
import { describeOp } from './node.js';
import type { NodeInRollout, PoolEnd, RolloutChange, WaveSeen } from './scenario-result.js';
import type { ScenarioRun } from './scenario-run.js';
import { assertNodesHealthy, withLog } from './shoot-reads.js';
import { until } from './wait.js';

/**
 * Where a rollout starts for the watcher: each node's recorded systemd calls so far, and the time
 * before which a report is no report of this rollout (of the same checksum: the fix is the previous
 * spec; apply-time has whole seconds). Taken before the Cluster changes: the gate may permit a
 * canary, and its agent restart the kubelet, before every pool's OSC secret has followed.
 */
export interface RolloutStart {
  readonly marks: ReadonlyMap<string, number>;
  readonly since: number;
}

export async function rolloutStart(run: ScenarioRun): Promise<RolloutStart> {
  await Promise.all(run.nodes.map((n) => n.refresh()));
  return {
    marks: new Map(run.nodes.map((n) => [n.name, n.ops().length])),
    since: Math.floor(Date.now() / 1000) * 1000 - 1000,
  };
}

export async function watchGatedRollout(
  run: ScenarioRun,
  o: {
    readonly label: string;
    readonly targets: ReadonlyMap<string, string>;
    /** Until every pool completed, or until every pool halted or completed. */
    readonly until: 'completed' | 'halted';
    readonly timeoutMs: number;
    /** Taken before the Cluster changed (rolloutStart). */
    readonly start: RolloutStart;
  },
): Promise<RolloutChange> {
  const { marks, since } = o.start;
  const nodes = new Map<string, NodeInRollout>(
    run.nodes.map((n) => [n.name, { node: n.name, pool: n.spec.pool, zone: n.spec.zone, restarts: [] }]),
  );
  const waves: WaveSeen[] = [];
  const pools = new Map<string, PoolEnd>();
  const lastWave = new Map<string, number>();
  const poll = async () => {
    assertNodesHealthy(run.nodes);
    await Promise.all(run.nodes.map((n) => n.refresh()));
    const now = Date.now();
    const cm = await run.landscape.seedCore
      .readNamespacedConfigMap({ name: ROLLOUT_STATUS_CONFIGMAP, namespace: run.landscape.namespace })
      .catch(() => undefined);
    const status = decodeRolloutStatus(cm?.data);
    for (const [pool, target] of o.targets) {
      const p: PoolRollout | undefined = status.get(pool);
      if (!p || p.target !== target) continue;
      if (p.wave > (lastWave.get(pool) ?? 0) && p.members.length > 0) {
        lastWave.set(pool, p.wave);
        const kind = p.first.some((n) => p.members.some((m) => m.node === n))
          ? 'first'
          : waves.some((w) => w.pool === pool && w.kind !== 'first')
            ? 'wave'
            : 'canary';
        const wave: WaveSeen = {
          pool,
          wave: p.wave,
          kind,
          nodes: p.members.map((m) => m.node),
          at: run.since(now),
        };
        waves.push(wave);
        for (const name of wave.nodes) {
          const n = nodes.get(name);
          if (n) n.wave = p.wave;
        }
        const zones = [...new Set(wave.nodes.map((x) => nodes.get(x)?.zone ?? '?'))].join(', ');
        run.emit(
          'step',
          `${o.label}: ${pool} wave ${p.wave} (${kind === 'first' ? 'the nodes the last configuration failed' : kind}): ${wave.nodes.join(', ')} (zone ${zones})`,
        );
      }
      const done = p.phase === 'Completed' || (o.until === 'halted' && p.phase === 'Halted');
      if (done && !pools.has(pool)) {
        pools.set(pool, { pool, phase: p.phase as PoolEnd['phase'], at: run.since(now), reason: p.reason });
        run.emit(
          'step',
          p.phase === 'Halted'
            ? `${o.label}: ${pool} HALTED: ${p.reason}`
            : `${o.label}: ${pool} completed in ${p.wave} wave(s): ${p.updated} updated, ${p.failed} failed`,
        );
      }
    }
    for (const object of (await run.landscape.shootCore.listNode()).items) {
      const n = nodes.get(object.metadata?.name ?? '');
      const target = n && o.targets.get(n.pool);
      if (!n || !target) continue;
      const annotations = object.metadata?.annotations as Record<string, string> | undefined;
      const node = run.nodes.find((x) => x.name === n.node)!;
      if (n.permittedAt === undefined && annotations?.[PERMITTED_CHECKSUM_ANNOTATION] === target)
        n.permittedAt = run.since(now);
      const report = readApplyReport(annotations);
      const fresh = report?.time !== undefined && report.time >= since;
      if (n.result === undefined && fresh && report?.checksum === target && report.result !== 'Verifying') {
        n.result = report.result;
        n.reason = report.reason;
        n.reportedAt = run.since(now);
        const ops = node.ops(marks.get(n.node));
        const first = ops.find((op) => op.at);
        n.appliedAt = first?.at ? run.since(Date.parse(first.at)) : undefined;
        n.restarts = ops
          .filter((op) => op.op === 'restart' && 'unit' in op)
          .map((op) => ({ unit: 'unit' in op ? op.unit : '', at: run.since(Date.parse(op.at ?? '')) }));
        run.emit(
          'node',
          `${o.label}: ${n.result === 'Succeeded' ? 'applied and healthy' : `FAILED (${report.reason}: ${report.message})`}; ${
            ops
              .filter((op) => op.op === 'restart')
              .map(describeOp)
              .join(', ') || 'nothing restarted'
          }${annotations?.[ANNOTATION.checksumCloudConfigData] === target ? '' : ' (the node does not run it)'}`,
          n.node,
        );
      }
    }
    return [...o.targets.keys()].every((pool) => pools.has(pool));
  };
  await until(
    `${o.label}: every pool ${o.until === 'completed' ? 'completed' : 'halted or completed'}`,
    poll,
    {
      timeoutMs: o.timeoutMs,
      signal: run.signal,
      intervalMs: 200,
    },
  ).catch(withLog(run.controllerManager!, run.controllerManagerLog));
  return { label: o.label, targets: o.targets, nodes, waves, pools };
}
