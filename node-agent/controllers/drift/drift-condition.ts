/**
 * The Node condition `NodeConfigurationDrift` (docs/node-agent.md#drift): `True` while the node
 * differs from what the agent applied last in something not adopted, with what drifted (bounded:
 * the first MAX_LISTED, then how many more), `False` when it has what it was given. Reasons:
 * `DriftRepaired`, `DriftReported` (the policy or a rollout left some unrepaired), `NoDrift`. Pure.
 */
import type { V1NodeCondition } from '@kubernetes/client-node';
import { DRIFT_CONDITION_REASON, DRIFT_CONDITION_TYPE } from '../../../api/index.js';
import { driftText } from '../../planner/drift.js';
import type { DriftDecision } from '../../planner/drift-policy.js';

export { DRIFT_CONDITION_TYPE };
export const MAX_LISTED = 10;

export interface DriftConditionInput {
  /** What the check found, with the policy's decision. */
  readonly found: readonly DriftDecision[];
  /** What is still there after it (adopted drift left out). */
  readonly open: readonly DriftDecision[];
  /** Why nothing was repaired (a rollout, a halt, a failed repair), if so. */
  readonly held?: string;
}

export function driftMessage(decisions: readonly DriftDecision[]): string {
  const listed = decisions.slice(0, MAX_LISTED).map((d) => `${d.action}: ${driftText(d.drift)}`);
  const more = decisions.length - listed.length;
  return [...listed, ...(more > 0 ? [`and ${more} more`] : [])].join('; ');
}

export function driftCondition(
  input: DriftConditionInput,
  now: Date,
  previous?: V1NodeCondition,
): V1NodeCondition {
  const { open } = input;
  const status = open.length > 0 ? 'True' : 'False';
  const reason =
    open.length > 0
      ? DRIFT_CONDITION_REASON.reported
      : input.found.length > 0
        ? DRIFT_CONDITION_REASON.repaired
        : DRIFT_CONDITION_REASON.none;
  const message =
    open.length > 0
      ? `${driftMessage(open)}${input.held ? ` (${input.held})` : ''}`
      : input.found.length > 0
        ? `repaired: ${driftMessage(input.found)}`
        : 'the node has what the node agent applied last';
  const transitioned = previous?.status !== status;
  return {
    type: DRIFT_CONDITION_TYPE,
    status,
    reason,
    message,
    lastHeartbeatTime: now,
    lastTransitionTime: transitioned ? now : (previous?.lastTransitionTime ?? now),
  };
}
