/**
 * Did a restart or stop that was in flight when the agent died take effect? Decided from what
 * systemd reported about the unit right before the call (recorded with the intent) and what it
 * reports now, never from the agent's own bookkeeping, which is exactly what a crash loses.
 *
 * - restart: the unit has started since (a new InvocationID, or it left the inactive state again),
 *   or it is between stop and start right now (the job is running in systemd). A unit that
 *   restarted by itself meanwhile also counts: it started after the new configuration was in
 *   place, which is all the restart was for.
 * - stop: the unit is not running (or is stopping), or it has been stopped since.
 * After a reboot the invocation and timestamps all differ: a restart counts as done (the unit
 * started with the new configuration), a stop is decided by the current state alone.
 *
 * A restart that took effect may still have failed: its new invocation ended `failed` (a oneshot
 * whose program failed, a start that timed out). Without the crash `systemctl restart` would have
 * reported that failure, so the resumed apply must report it too, not count the unit as restarted.
 */
import type { UnitStatus } from '../systemd/unit-status.js';

export type UnitCommand = 'restart' | 'stop';

const STOPPED_STATES = new Set(['inactive', 'failed', 'deactivating']);

function started(before: UnitStatus, now: UnitStatus): boolean {
  return (
    (now.invocationId !== '' && now.invocationId !== before.invocationId) ||
    (now.inactiveExitTimestampMonotonic !== 0 &&
      now.inactiveExitTimestampMonotonic !== before.inactiveExitTimestampMonotonic)
  );
}

function stopped(before: UnitStatus, now: UnitStatus): boolean {
  return (
    now.inactiveEnterTimestampMonotonic !== 0 &&
    now.inactiveEnterTimestampMonotonic !== before.inactiveEnterTimestampMonotonic
  );
}

export function commandTookEffect(command: UnitCommand, before: UnitStatus, now: UnitStatus): boolean {
  if (command === 'restart') {
    const inTransition = now.activeState === 'deactivating' || now.activeState === 'activating';
    return started(before, now) || (stopped(before, now) && inTransition);
  }
  return STOPPED_STATES.has(now.activeState) || stopped(before, now);
}

/** What a resumed apply does with a restart or stop its predecessor was interrupted in. */
export type InterruptedCommandOutcome = 'repeat' | 'done' | 'failed';

export function interruptedCommandOutcome(
  command: UnitCommand,
  before: UnitStatus,
  now: UnitStatus,
): InterruptedCommandOutcome {
  if (!commandTookEffect(command, before, now)) return 'repeat';
  return command === 'restart' && now.activeState === 'failed' ? 'failed' : 'done';
}
