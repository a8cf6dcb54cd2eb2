/**
 * The unit state a real systemd would report after a sequence of calls, for the recording and
 * in-memory Systemd: every start or restart is a new invocation (a new InvocationID, the unit left
 * inactive at that moment), a restart of an active unit and a stop enter inactive. The n-th call
 * happens at monotonic time n seconds. Every unit starts out inactive and never started, so the
 * answers depend only on the calls, and a recording file alone tells them, across processes.
 */
import { createHash } from 'node:crypto';
import type { SystemdOp } from './systemd.js';
import type { UnitStatus } from './unit-status.js';

export function simulatedUnitStatus(ops: readonly SystemdOp[], unit: string): UnitStatus {
  let active = false;
  let invocations = 0;
  let activeEnter = 0;
  let inactiveEnter = 0;
  let inactiveExit = 0;
  ops.forEach((op, i) => {
    if (!('unit' in op) || op.unit !== unit) return;
    const at = (i + 1) * 1_000_000;
    if (op.op === 'start' && active) return;
    if (op.op === 'start' || op.op === 'restart') {
      if (active) inactiveEnter = at;
      invocations++;
      inactiveExit = at;
      activeEnter = at;
      active = true;
    } else if (op.op === 'stop' && active) {
      inactiveEnter = at;
      active = false;
    }
  });
  return {
    loadState: 'loaded',
    activeState: active ? 'active' : 'inactive',
    subState: active ? 'running' : 'dead',
    invocationId:
      invocations === 0
        ? ''
        : createHash('sha256').update(`${unit}#${invocations}`).digest('hex').slice(0, 32),
    activeEnterTimestampMonotonic: activeEnter,
    inactiveEnterTimestampMonotonic: inactiveEnter,
    inactiveExitTimestampMonotonic: inactiveExit,
  };
}
