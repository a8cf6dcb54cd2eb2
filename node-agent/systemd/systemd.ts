import type { UnitActivity } from './unit-activity.js';
import type { UnitStatus } from './unit-status.js';

/**
 * What the node agent asks of systemd (gardener v1.91.4 pkg/nodeagent/dbus/dbus.go). Unit names are
 * passed verbatim. start, stop and restart wait for the job (at most a bounded time, see the
 * systemctl implementation). `unitStatus` reads systemd's own view of a unit (`systemctl show`),
 * which is how an apply resumed after a crash tells whether a restart or stop in flight already
 * took effect.
 */
export interface Systemd {
  unitStatus(unit: string): Promise<UnitStatus>;
  daemonReload(): Promise<void>;
  enable(units: readonly string[]): Promise<void>;
  disable(units: readonly string[]): Promise<void>;
  start(unit: string): Promise<void>;
  stop(unit: string): Promise<void>;
  restart(unit: string): Promise<void>;
  /**
   * The unit's ExecReload= (`systemctl reload-or-restart`): a running unit keeps its process and
   * InvocationID; one that is not running is started, so the change still takes effect.
   */
  reload(unit: string): Promise<void>;
  /**
   * `systemctl is-enabled`: enabled, disabled, static, masked, masked-runtime, …; '' when systemd
   * does not know the unit. Optional: drift detection (applier/drift-detect.ts) checks enablement
   * only where the backend can tell.
   */
  unitFileState?(unit: string): Promise<string>;
  /**
   * When the unit last changed state and which units trigger it: what the `SystemdUnitsReady`
   * check needs beyond `unitStatus` (controllers/systemdunitcheck/). Optional: without it a unit
   * changed state just now and nothing triggers it.
   */
  unitActivity?(unit: string): Promise<UnitActivity>;
}

/**
 * The read-only queries of `systemd`, passed through unchanged: what a wrapper that only observes
 * jobs (events, metrics) spreads into its own Systemd, so an optional query is never lost on the
 * way (drift detection reads `unitFileState` through both of the agent's wrappers).
 */
export function systemdQueries(
  systemd: Systemd,
): Pick<Systemd, 'unitStatus' | 'unitFileState' | 'unitActivity'> {
  return {
    unitStatus: (unit) => systemd.unitStatus(unit),
    ...(systemd.unitFileState ? { unitFileState: (unit: string) => systemd.unitFileState!(unit) } : {}),
    ...(systemd.unitActivity ? { unitActivity: (unit: string) => systemd.unitActivity!(unit) } : {}),
  };
}

export type SystemdUnitOp = 'enable' | 'disable' | 'start' | 'stop' | 'restart' | 'reload';

/** One call as the recorders log it; enable and disable are one op per unit. */
export type SystemdOp =
  | { readonly op: 'daemon-reload' }
  | { readonly op: SystemdUnitOp; readonly unit: string };
