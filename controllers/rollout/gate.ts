/**
 * The health gate for one node of a wave (docs/rollout.md): it passes once it reported success
 * for the target and then stayed Ready with a fresh Lease for the settle time; it fails when it
 * reports a failure, when it goes NotReady or its Lease goes stale after it was healthy (or while
 * it applies, if it was healthy when it got its permission), or when it does not become healthy
 * within the settle time after its success. While the Leases are not known it waits: a gate that
 * cannot decide holds. Pure.
 */
import type { NodeView } from './observe.js';
import type { WaveMember } from './state.js';

export type MemberVerdict =
  | { readonly kind: 'wait'; readonly member: WaveMember; readonly until?: number }
  | { readonly kind: 'pass'; readonly member: WaveMember }
  | { readonly kind: 'fail'; readonly member: WaveMember; readonly reason: string; readonly message: string }
  | { readonly kind: 'gone' };

export const REASON_NOT_READY = 'NodeNotReady';
export const REASON_LEASE_EXPIRED = 'LeaseExpired';

export function healthy(node: NodeView): boolean {
  return node.ready && node.leaseFresh === true;
}

function unhealthy(node: NodeView, when: string): { reason: string; message: string } {
  if (!node.ready) return { reason: REASON_NOT_READY, message: `the Node is not Ready ${when}` };
  const renewed = node.leaseRenewed === undefined ? 'never' : new Date(node.leaseRenewed).toISOString();
  return {
    reason: REASON_LEASE_EXPIRED,
    message: `the agent's Lease is not fresh ${when} (last seen renewed ${renewed}, by the seed's clock)`,
  };
}

/** Whether the node reported success for `target` (an agent that reports nothing: it applied it). */
export function succeeded(node: NodeView, target: string): boolean {
  if (node.report?.checksum === target) return node.report.result === 'Succeeded';
  return node.applied === target;
}

export function reportedFailure(node: NodeView, target: string): boolean {
  return node.report?.checksum === target && node.report.result === 'Failed';
}

export function judgeMember(
  member: WaveMember,
  node: NodeView | undefined,
  target: string,
  now: number,
  settleMs: number,
): MemberVerdict {
  if (!node) return { kind: 'gone' };
  if (member.grantedAt === undefined) return { kind: 'wait', member, until: member.grantAt };
  if (reportedFailure(node, target))
    return { kind: 'fail', member, reason: node.report!.reason, message: node.report!.message };
  if (node.leaseFresh === undefined) return { kind: 'wait', member };
  const fine = healthy(node);
  if (!succeeded(node, target)) {
    if (member.baseline && !fine)
      return { kind: 'fail', member, ...unhealthy(node, 'while it applies the change') };
    return { kind: 'wait', member };
  }
  const succeededAt = member.succeededAt ?? now;
  if (fine) {
    // Ready moved since it was seen healthy: it was NotReady in between
    if (
      member.healthySince !== undefined &&
      node.readySince !== undefined &&
      node.readySince > member.healthySince
    )
      return {
        kind: 'fail',
        member,
        reason: REASON_NOT_READY,
        message: `the Node was not Ready within the settle time (Ready again since ${new Date(node.readySince).toISOString()})`,
      };
    const healthySince = member.healthySince ?? now;
    const next = { ...member, succeededAt, healthySince };
    return now - healthySince >= settleMs
      ? { kind: 'pass', member: next }
      : { kind: 'wait', member: next, until: healthySince + settleMs };
  }
  if (member.healthySince !== undefined || member.baseline)
    return { kind: 'fail', member, ...unhealthy(node, 'within the settle time after its success') };
  if (now - succeededAt >= settleMs)
    return { kind: 'fail', member, ...unhealthy(node, 'a settle time after its success') };
  return { kind: 'wait', member: { ...member, succeededAt }, until: succeededAt + settleMs };
}

/**
 * A node that passed the gate earlier in this rollout and is not healthy now: it was Ready with a
 * fresh Lease when it passed, so it broke since, while the rollout still runs. An unknown Lease
 * (the seed cannot see) is no breakage.
 */
export function brokeAfterPassing(node: NodeView): { reason: string; message: string } | undefined {
  if (node.ready && node.leaseFresh !== false) return undefined;
  return unhealthy(node, 'after it passed the gate, while the rollout still runs');
}
