/**
 * The halt also lives on the Nodes (docs/rollout.md, "A halt survives losing the status"): every
 * node with an open (not accepted) failure of the target carries the seed's
 * `node-configuration.gardener.cloud/failed-checksum` and `failed-reason`. A rollout that finds no
 * status (it was deleted because it could not be read, or the gate was turned off and on) takes
 * the failures of the target back from these marks before it chooses a canary, so it halts again
 * instead of handing the next canary a configuration that already failed with NotReady or a
 * stale Lease (a reported failure stays on the Node anyway). A resume accepts the failures and
 * removes the marks; a new checksum removes the old ones. Pure.
 */
import type { NodeView } from './observe.js';
import type { NodeFailure, PoolRollout } from './state.js';

export interface FailureMark {
  readonly checksum: string;
  readonly reason: string;
}

export const RESTORED_MESSAGE =
  'failed this checksum before the rollout status was lost (recorded on the Node by the seed)';

/** The failures of `target` the Nodes carry, for a rollout that starts without a status. */
export function restoreFailures(nodes: readonly NodeView[], target: string, now: number): NodeFailure[] {
  return nodes
    .filter((n) => n.failureMark?.checksum === target)
    .map((n) => ({
      node: n.name,
      reason: n.failureMark!.reason || 'Unknown',
      message: RESTORED_MESSAGE,
      at: now,
    }));
}

/** The marks to write (null: remove) where a Node's mark differs from the state's open failures. */
export function markChanges(
  nodes: readonly NodeView[],
  state: PoolRollout,
): ReadonlyMap<string, FailureMark | null> {
  const open = new Map(state.failures.filter((f) => !f.accepted).map((f) => [f.node, f.reason]));
  const changes = new Map<string, FailureMark | null>();
  for (const n of nodes) {
    const reason = open.get(n.name);
    const want = reason === undefined ? undefined : { checksum: state.target, reason };
    const have = n.failureMark;
    if (want && (have?.checksum !== want.checksum || have.reason !== want.reason)) changes.set(n.name, want);
    else if (!want && have) changes.set(n.name, null);
  }
  return changes;
}
