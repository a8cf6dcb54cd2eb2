/**
 * Step 3/4 with `--break-rollout`: a bad kubelet configuration (`maxPods: 999`, with which the
 * demo's recorded systemd leaves kubelet inactive after its restart, on every node that applies
 * it). The rollout gate lets it out to the canary of each pool only; the canary reports the failed
 * kubelet, the pool halts with a Warning event. Then the fix, the previous spec, supersedes the
 * halted rollout and reaches the failed nodes first.
 */
import { ANNOTATION, readApplyReport } from '../../../api/index.js';
import { DEMO_ROLLOUT, DEMO_SETTLE_MS } from '../landscape.js';
import { rolloutStart, watchGatedRollout } from '../rollout-watch.js';
import { BAD_MAX_PODS } from '../scenario-result.js';
import type { ScenarioRun } from '../scenario-run.js';
import { sleep } from '../wait.js';
import { changeCluster, nodeDelays, type RolloutOutcome, rolloutOutcome } from './rollout.js';

type Worker = { name: string; kubernetes?: { kubelet?: { maxPods?: number } } };

export async function breakKubeletChange(run: ScenarioRun): Promise<RolloutOutcome> {
  run.heading(
    'rollout',
    `3/4 A bad kubelet configuration (maxPods ${BAD_MAX_PODS}: kubelet does not stay up), stopped at the canary by the health gate (canary ${DEMO_ROLLOUT.canary}, settle ${DEMO_ROLLOUT.settleTime})`,
  );
  const from = Date.now();
  const delays = await nodeDelays(run);
  // the previous spec, to go back to
  const live = (await run.landscape.cluster()).spec.shoot.spec;
  const shootMaxPods = live.kubernetes.kubelet?.maxPods as number | undefined;
  const poolMaxPods = new Map(
    (live.provider.workers as Worker[]).map((w) => [w.name, w.kubernetes?.kubelet?.maxPods]),
  );
  const badStart = await rolloutStart(run);
  const change = await changeCluster(run, (s) => {
    s.spec.kubernetes.kubelet = { ...s.spec.kubernetes.kubelet, maxPods: BAD_MAX_PODS };
    for (const w of s.spec.provider.workers as Worker[])
      if (w.kubernetes?.kubelet) w.kubernetes.kubelet.maxPods = BAD_MAX_PODS;
    return `kubelet maxPods ${BAD_MAX_PODS} in the shoot and every pool's own kubelet (a bad value)`;
  });
  const bad = await watchGatedRollout(run, {
    start: badStart,
    label: 'bad configuration',
    targets: change.targets,
    until: 'halted',
    timeoutMs: 120_000,
  });
  // nothing more goes out while the pools are halted
  await sleep(2 * DEMO_SETTLE_MS, run.signal);
  const badChecksums = new Set(change.targets.values());
  const reached = (await run.landscape.shootCore.listNode()).items.filter((n) => {
    const annotations = n.metadata?.annotations as Record<string, string> | undefined;
    const report = readApplyReport(annotations);
    return (
      (report && badChecksums.has(report.checksum)) ||
      badChecksums.has(annotations?.[ANNOTATION.checksumCloudConfigData] ?? '')
    );
  });
  const halted = [...bad.pools.values()].filter((p) => p.phase === 'Halted').length;
  const applied = reached.length;
  run.emit(
    'step',
    halted === change.targets.size
      ? `bad configuration applied on ${applied} of ${run.nodes.length} nodes; rollout halted`
      : `bad configuration applied on ${applied} of ${run.nodes.length} nodes; rollout NOT halted in ${change.targets.size - halted} pool(s)`,
  );
  const fixStart = await rolloutStart(run);
  const fixChange = await changeCluster(run, (s) => {
    s.spec.kubernetes.kubelet = { ...s.spec.kubernetes.kubelet, maxPods: shootMaxPods };
    for (const w of s.spec.provider.workers as Worker[])
      if (w.kubernetes?.kubelet) w.kubernetes.kubelet.maxPods = poolMaxPods.get(w.name);
    return `back to the previous spec (maxPods ${shootMaxPods ?? 'unset'} in the shoot, each pool's own as before)`;
  });
  const fix = await watchGatedRollout(run, {
    start: fixStart,
    label: 'the fix',
    targets: fixChange.targets,
    until: 'completed',
    timeoutMs: 240_000,
  });
  const outcome = rolloutOutcome(run, {
    mode: 'broken',
    change,
    changes: [bad, fix],
    delays,
    bad: { applied, nodes: run.nodes.length, pools: change.targets.size },
  });
  run.phases.rollout = { from: run.since(from), to: run.since(Date.now()) };
  return outcome;
}
