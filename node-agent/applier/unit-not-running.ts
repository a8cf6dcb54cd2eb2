/**
 * Whether a unit the OSC starts counts as not running for drift detection
 * (docs/node-agent.md#drift, kind `not-running`). Failed is not running; inactive is not running
 * unless the unit's program did what it was started for and ended by itself:
 *  - a oneshot that exited cleanly;
 *  - a service whose main process exited with status 0 (a script as ExecStart= of a `Type=simple`
 *    unit, like the timer-run `containerd-logrotate.service`);
 *  - a unit systemd no longer holds any run of (no InvocationID): systemd unloads an unreferenced
 *    unit once it ended without failing (a failed one stays loaded), as the rendered
 *    `gardener-user.service`, which has no [Install] section, after its script ran.
 * Both services are inactive on a real node after they ran (test/real-node/drift.test.ts). A
 * service somebody stopped ended by the stop's SIGTERM (CLD_KILLED), so it still counts; limits
 * of what systemd tells: a daemon that catches SIGTERM and exits 0, and a stopped unit nothing
 * references (unloaded), look like ones that finished. Pure.
 */
import type { UnitStatus } from '../systemd/unit-status.js';

/** waitid()'s CLD_EXITED, as `systemctl show` prints ExecMainCode. */
const CLD_EXITED = 1;

/** The unit's last run ended with exit status 0 and systemd calls its result a success. Pure. */
export function exitedCleanly(
  status: Pick<UnitStatus, 'result' | 'execMainCode' | 'execMainStatus'>,
): boolean {
  return (
    (status.result ?? 'success') === 'success' &&
    status.execMainCode === CLD_EXITED &&
    status.execMainStatus === 0
  );
}

export function notRunning(
  status: Pick<
    UnitStatus,
    'activeState' | 'type' | 'result' | 'execMainCode' | 'execMainStatus' | 'invocationId'
  >,
): boolean {
  if (status.activeState === 'failed') return true;
  if (status.activeState !== 'inactive') return false;
  const success = (status.result ?? 'success') === 'success';
  // a oneshot that ran and exited cleanly did what it was started for
  if (status.type === 'oneshot' && success) return false;
  const unloaded = status.invocationId === '';
  return !(exitedCleanly(status) || (success && unloaded));
}
