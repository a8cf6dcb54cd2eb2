/**
 * What systemd itself says about a unit, as `systemctl show` prints it: enough to tell, after a
 * crash, whether a restart or stop the agent asked for already happened. A restart gives the unit
 * a new `InvocationID` and moves `InactiveExitTimestampMonotonic` (it left the inactive state);
 * a stop moves `InactiveEnterTimestampMonotonic`. Timestamps are microseconds of CLOCK_MONOTONIC,
 * 0 when the transition never happened since boot.
 */
export interface UnitStatus {
  /** loaded, not-found, masked, ... */
  readonly loadState: string;
  /** active, inactive, failed, activating, deactivating, reloading */
  readonly activeState: string;
  readonly subState: string;
  /**
   * The service type (simple, exec, notify, forking, oneshot, ...); '' or missing for other unit
   * kinds and where it is not known (a progress file of an older agent, the simulation).
   */
  readonly type?: string;
  /**
   * How the unit's last run ended: `success` (running, or exited cleanly), `exit-code`, `signal`,
   * `timeout`, `core-dump`, `start-limit-hit`, ...; '' or missing where it is not known.
   */
  readonly result?: string;
  /**
   * How the main process of a service's last run ended, as waitid() says (`ExecMainCode`):
   * 1 (CLD_EXITED) it exited, with `execMainStatus` its exit status; 2 (CLD_KILLED) a signal
   * ended it, e.g. the SIGTERM of a stop; 0 or missing where it never ran or is not known.
   */
  readonly execMainCode?: number;
  readonly execMainStatus?: number;
  /** 32 hex digits, a new one for every start; '' when the unit never started since boot. */
  readonly invocationId: string;
  readonly activeEnterTimestampMonotonic: number;
  readonly inactiveEnterTimestampMonotonic: number;
  readonly inactiveExitTimestampMonotonic: number;
}

/** The properties read, in `systemctl show --property=` spelling. */
export const UNIT_STATUS_PROPERTIES = [
  'LoadState',
  'ActiveState',
  'SubState',
  'Type',
  'Result',
  'ExecMainCode',
  'ExecMainStatus',
  'InvocationID',
  'ActiveEnterTimestampMonotonic',
  'InactiveEnterTimestampMonotonic',
  'InactiveExitTimestampMonotonic',
] as const;

/** Parses `Key=Value` lines of `systemctl show`; a property systemd did not print is empty or 0. */
export function parseUnitStatus(text: string): UnitStatus {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq), line.slice(eq + 1).trim());
  }
  const text_ = (key: string) => values.get(key) ?? '';
  const number = (key: string) => {
    const n = Number(values.get(key) ?? '0');
    return Number.isFinite(n) ? n : 0;
  };
  return {
    loadState: text_('LoadState'),
    activeState: text_('ActiveState'),
    subState: text_('SubState'),
    type: text_('Type'),
    result: text_('Result'),
    execMainCode: number('ExecMainCode'),
    execMainStatus: number('ExecMainStatus'),
    invocationId: text_('InvocationID'),
    activeEnterTimestampMonotonic: number('ActiveEnterTimestampMonotonic'),
    inactiveEnterTimestampMonotonic: number('InactiveEnterTimestampMonotonic'),
    inactiveExitTimestampMonotonic: number('InactiveExitTimestampMonotonic'),
  };
}
