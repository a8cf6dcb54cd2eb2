/**
 * The verdict on each managed unit from systemd's view of it (gardener v1.150.0
 * pkg/nodeagent/controller/systemdunitcheck/reconciler.go `checkUnits`), word for word:
 * - not known to systemd and enabled: `<unit>: not loaded`;
 * - active but disabled: `<unit>: active but should be disabled`;
 * - failed and enabled: `<unit>: failed` (a failed disabled unit is ignored);
 * - activating/deactivating: healthy in `auto-restart` (Restart=always between runs), else
 *   progressing (`<unit>: <state> for <age>`) until `stuckThreshold`, then unhealthy
 *   (`<unit>: stuck in <state> for <age>`), the age truncated to seconds in Go's notation;
 * - inactive and enabled: healthy when `dead` and a oneshot service or triggered by a timer or
 *   path unit, else `<unit>: inactive but should be enabled`.
 * Upstream lists the units in one D-Bus call, which answers for every name; `systemctl show`
 * does the same, with `LoadState=not-found` for a unit systemd has no file of: that is what
 * "not loaded" means here.
 */
import { formatGoDuration } from '../../../api/index.js';
import type { Systemd } from '../../systemd/systemd.js';
import { monotonicNowMicros } from '../../systemd/unit-activity.js';
import type { ManagedUnit } from './managed-units.js';

export interface UnitVerdicts {
  readonly unhealthy: readonly string[];
  readonly progressing: readonly string[];
}

export interface UnitVerdictOptions {
  readonly systemd: Pick<Systemd, 'unitStatus' | 'unitActivity'>;
  /** Nanoseconds, as in the configuration (default 5m). */
  readonly stuckThreshold: number;
  /** CLOCK_MONOTONIC in microseconds (tests). */
  readonly monotonicNow?: () => number;
}

const NOT_LOADED = new Set(['', 'not-found']);

export async function unitVerdicts(
  units: readonly ManagedUnit[],
  o: UnitVerdictOptions,
): Promise<UnitVerdicts> {
  const unhealthy: string[] = [];
  const progressing: string[] = [];
  for (const unit of units) {
    const status = await o.systemd.unitStatus(unit.name);
    if (NOT_LOADED.has(status.loadState)) {
      if (unit.enabled) unhealthy.push(`${unit.name}: not loaded`);
      continue;
    }
    switch (status.activeState) {
      case 'active':
        if (!unit.enabled) unhealthy.push(`${unit.name}: active but should be disabled`);
        break;
      case 'failed':
        if (unit.enabled) unhealthy.push(`${unit.name}: failed`);
        break;
      case 'activating':
      case 'deactivating': {
        if (status.subState === 'auto-restart') break;
        const activity = await o.systemd.unitActivity?.(unit.name);
        const now = (o.monotonicNow ?? monotonicNowMicros)();
        const ageMicros = activity ? Math.max(0, now - activity.stateChangeTimestampMonotonic) : 0;
        const age = formatGoDuration(Math.floor(ageMicros / 1e6) * 1e9);
        if (ageMicros * 1e3 >= o.stuckThreshold)
          unhealthy.push(`${unit.name}: stuck in ${status.activeState} for ${age}`);
        else progressing.push(`${unit.name}: ${status.activeState} for ${age}`);
        break;
      }
      case 'inactive': {
        if (!unit.enabled) break;
        if (status.subState === 'dead') {
          if (status.type === 'oneshot') break;
          const activity = await o.systemd.unitActivity?.(unit.name);
          if ((activity?.triggeredBy.length ?? 0) > 0) break;
        }
        unhealthy.push(`${unit.name}: inactive but should be enabled`);
        break;
      }
    }
  }
  return { unhealthy, progressing };
}
