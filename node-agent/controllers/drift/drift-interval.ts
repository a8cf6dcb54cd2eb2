/**
 * How often the running agent checks the whole node for drift (docs/node-agent.md#drift). On a
 * node (root `/`) the monitor runs by default: the agent's unit is contract bytes, so a landscape's
 * agent is never started with a flag, and a node that no longer runs what it was given must be
 * noticed there. A tree in a temp dir (tests, tools, many agents on one machine) has no monitor
 * unless asked for one.
 */

/** The periodic full check beside the inotify watch, and the bound when the watch falls back. */
export const DEFAULT_DRIFT_CHECK_INTERVAL_MS = 60_000;

/** The interval the agent runs its drift monitor with, or undefined for none. Pure. */
export function driftCheckInterval(o: {
  readonly root: string;
  /** `false`: off (`--drift-check-interval 0s`); absent: the default for the root. */
  readonly driftCheckIntervalMs?: number | false;
}): number | undefined {
  if (o.driftCheckIntervalMs === false) return undefined;
  return o.driftCheckIntervalMs ?? (o.root === '/' ? DEFAULT_DRIFT_CHECK_INTERVAL_MS : undefined);
}
