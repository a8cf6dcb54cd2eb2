/**
 * A wave that does not progress (docs/rollout.md, "A wave that stalls"): a node of the wave still
 * waited for `waveTimeout` after its permission (counted from the gate's own start at the
 * earliest, so the controller-manager's outage is not the node's delay) is stalled. Why decides
 * what the wave does with it, by the `stalledNodes` policy:
 *
 * - `down`: it is not Ready or its Lease is stale (it died before or after its permission): it
 *   says nothing about the configuration; `skipUnhealthy` (the default) and `skip` leave it out of
 *   this rollout, `halt` counts it as a failure.
 * - `silent`: Ready with a fresh Lease, but its agent did not report success (an apply that hangs
 *   may be the configuration's doing): `skipUnhealthy` and `halt` count it as a failure, `skip`
 *   leaves it out.
 * - `unseen`: the seed cannot see its Lease (not listed, or most Leases stale together): the gate
 *   cannot judge and holds, whatever the policy; the stall is reported.
 *
 * Pure.
 */
import type { RolloutSettings } from '../../seed/manager/config.js';
import { healthy } from './gate.js';
import type { NodeView } from './observe.js';
import type { WaveMember } from './state.js';

export type StallKind = 'down' | 'silent' | 'unseen';
export type StallAction = 'skip' | 'fail' | 'wait';

export const REASON_WAVE_TIMEOUT = 'WaveTimeout';

export interface Stall {
  readonly kind: StallKind;
  readonly action: StallAction;
  /** Why it is waited for, for events and the status. */
  readonly why: string;
}

const WHY: Record<StallKind, string> = {
  down: 'the Node is not Ready or its Lease is stale',
  silent: 'the Node is Ready with a fresh Lease, but its agent has not reported success',
  unseen: "the seed cannot see the node's Lease",
};

export function stallOf(
  member: WaveMember,
  node: NodeView,
  now: number,
  settings: Pick<RolloutSettings, 'waveTimeout' | 'stalledNodes'>,
  gateSince: number,
): Stall | undefined {
  if (member.grantedAt === undefined) return undefined;
  if (now - Math.max(member.grantedAt, gateSince) < settings.waveTimeout) return undefined;
  const kind: StallKind = node.leaseFresh === undefined ? 'unseen' : healthy(node) ? 'silent' : 'down';
  const policy = settings.stalledNodes;
  const action: StallAction =
    kind === 'unseen'
      ? 'wait'
      : policy === 'halt' || (policy === 'skipUnhealthy' && kind === 'silent')
        ? 'fail'
        : 'skip';
  return { kind, action, why: WHY[kind] };
}
