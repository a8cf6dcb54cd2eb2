/**
 * What the actions of a plan cost a node in NotReady seconds, from measurements rather than
 * assumptions, and the sum a pool's plan shows (`disruption.notReadySecondsPerNode`).
 *
 * | action | NotReady per node | source |
 * | --- | --- | --- |
 * | a kubelet restart (`Restart` or `DrainAndRestart` of kubelet.service) | 0.0 s | docs/benchmarks.md "A real kubelet" (`test/real-node/real-kubelet.test.ts`, kubelet v1.34.4, four runs): the Node never went NotReady; `/healthz` answered after 0.63–0.88 s, the Lease was renewed after 0.66–0.94 s; nothing marks a Node NotReady before its Lease is 40 s old (docs/node-delay.md) |
 * | a drain (`DrainAndRestart` of any unit) | + 0.88 s | the Node stays cordoned, its pods evicted, until the agent sees it Ready after the restart (`wait-node-ready`, docs/least-disruption.md#draining): the restarted kubelet's slowest measured time to a healthy `/healthz` above |
 * | anything else | 0 s | no kubelet restart and no cordon |
 *
 * Eviction time is not counted: it depends on the pods' PodDisruptionBudgets and grace periods.
 */
import { UNIT } from '../../api/index.js';
import type { UnitDisruption } from '../planner/decide-disruption.js';

export const KUBELET_RESTART_NOT_READY_SECONDS = 0.0;
export const DRAIN_UNTIL_READY_SECONDS = 0.88;

export interface NotReadyEstimate {
  readonly kubeletRestarts: number;
  readonly drains: number;
  readonly notReadySecondsPerNode: number;
}

const restartsKubelet = (d: UnitDisruption) =>
  d.unit === UNIT.kubelet && (d.action === 'Restart' || d.action === 'DrainAndRestart');

export function notReadyEstimate(decisions: readonly UnitDisruption[]): NotReadyEstimate {
  const kubeletRestarts = decisions.filter(restartsKubelet).length;
  const drains = decisions.filter((d) => d.action === 'DrainAndRestart').length;
  const seconds = kubeletRestarts * KUBELET_RESTART_NOT_READY_SECONDS + drains * DRAIN_UNTIL_READY_SECONDS;
  // hundredths: the measurements have no more
  return { kubeletRestarts, drains, notReadySecondsPerNode: Math.round(seconds * 100) / 100 };
}

/** `expected NotReady 0.88 s per node (1 kubelet restarts × 0 s + 1 drains × 0.88 s until Ready)` */
export function notReadyText(e: NotReadyEstimate): string {
  const terms = [`${e.kubeletRestarts} kubelet restarts × ${KUBELET_RESTART_NOT_READY_SECONDS} s`];
  if (e.drains > 0) terms.push(`${e.drains} drains × ${DRAIN_UNTIL_READY_SECONDS} s until Ready`);
  return `expected NotReady ${e.notReadySecondsPerNode} s per node (${terms.join(' + ')})`;
}
