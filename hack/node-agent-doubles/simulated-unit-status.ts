/**
 * The unit state a real systemd would report after a sequence of calls, for the recording and
 * in-memory Systemd: every start or restart is a new invocation (a new InvocationID, the unit left
 * inactive at that moment), a restart of an active unit and a stop enter inactive. The n-th call
 * happens at monotonic time n seconds. Every unit starts out inactive and never started, so the
 * answers depend only on the calls, and a recording file alone tells them, across processes.
 * A call recorded with a fault (systemd-faults.ts) starts the unit, which then ends up `failed`
 * (the start job failed) or `inactive` (it exited at once), either way with the result `exit-code`;
 * every other unit's result is `success`.
 */
import { createHash } from 'node:crypto';
import type { SystemdOp } from '../../node-agent/systemd/systemd.js';
import type { UnitStatus } from '../../node-agent/systemd/unit-status.js';
import type { SystemdFaultEffect } from './systemd-faults.js';

export function simulatedUnitStatus(
  ops: readonly (SystemdOp & { readonly fault?: SystemdFaultEffect })[],
  unit: string,
): UnitStatus {
  let active = false;
  let fault: SystemdFaultEffect | undefined;
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
      fault = op.fault;
      if (fault) {
        inactiveEnter = at;
        active = false;
      }
    } else if (op.op === 'stop' && active) {
      inactiveEnter = at;
      active = false;
    }
  });
  const failed = !active && fault === 'fail';
  return {
    loadState: 'loaded',
    activeState: active ? 'active' : failed ? 'failed' : 'inactive',
    subState: active ? 'running' : failed ? 'failed' : 'dead',
    result: !active && fault ? 'exit-code' : 'success',
    invocationId:
      invocations === 0
        ? ''
        : createHash('sha256').update(`${unit}#${invocations}`).digest('hex').slice(0, 32),
    activeEnterTimestampMonotonic: activeEnter,
    inactiveEnterTimestampMonotonic: inactiveEnter,
    inactiveExitTimestampMonotonic: inactiveExit,
  };
}
