/**
 * Two properties of a unit the `SystemdUnitsReady` check reads besides its state (gardener v1.150.0
 * pkg/nodeagent/dbus/dbus.go `GetUnitStateChangeTimestamp`, `GetTriggeredBy`): how long a unit
 * has been activating, and whether a timer or path unit starts it (then `inactive (dead)` between
 * runs is its normal state). Upstream reads the wall-clock `StateChangeTimestamp`; `systemctl
 * show` prints that one localised, so ours reads the monotonic one and the age comes from the
 * same clock.
 */
export interface UnitActivity {
  /** Microseconds of CLOCK_MONOTONIC at the last state change; 0 when it never changed since boot. */
  readonly stateChangeTimestampMonotonic: number;
  /** Units that trigger this one (`TriggeredBy=`), e.g. `logrotate.timer`. */
  readonly triggeredBy: readonly string[];
}

export const UNIT_ACTIVITY_PROPERTIES = ['StateChangeTimestampMonotonic', 'TriggeredBy'] as const;

/** Parses `Key=Value` lines of `systemctl show --property=StateChangeTimestampMonotonic,TriggeredBy`. */
export function parseUnitActivity(text: string): UnitActivity {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) values.set(line.slice(0, eq), line.slice(eq + 1).trim());
  }
  const stamp = Number(values.get('StateChangeTimestampMonotonic') ?? '0');
  return {
    stateChangeTimestampMonotonic: Number.isFinite(stamp) ? stamp : 0,
    triggeredBy: (values.get('TriggeredBy') ?? '').split(/\s+/).filter((u) => u !== ''),
  };
}

/** CLOCK_MONOTONIC now, in microseconds (libuv's hrtime reads CLOCK_MONOTONIC on Linux). */
export function monotonicNowMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
