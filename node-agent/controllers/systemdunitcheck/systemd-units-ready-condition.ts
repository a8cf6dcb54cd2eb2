/**
 * The Node condition `SystemdUnitsReady` (gardener v1.150.0
 * pkg/nodeagent/controller/systemdunitcheck/reconciler.go `updateNodeCondition`): `False`
 * `UnhealthyUnits` with the unhealthy units' messages, else `True` `ProgressingUnits` with the
 * progressing ones', else `True` `AllUnitsHealthy`; messages joined with `; `. The transition
 * time is kept while the status stays, the heartbeat is now. Pure.
 */
import type { V1NodeCondition } from '@kubernetes/client-node';
import type { UnitVerdicts } from './unit-verdicts.js';

/** gardener v1.150.0 pkg/apis/config/nodeagent/v1alpha1 `ConditionTypeSystemdUnitsReady`. */
export const SYSTEMD_UNITS_READY = 'SystemdUnitsReady';

export const SYSTEMD_UNITS_READY_REASON = {
  healthy: 'AllUnitsHealthy',
  unhealthy: 'UnhealthyUnits',
  progressing: 'ProgressingUnits',
} as const;

export const ALL_UNITS_HEALTHY_MESSAGE =
  'All systemd units from the operating system config are running as expected.';

export function systemdUnitsReadyCondition(
  verdicts: UnitVerdicts,
  now: Date,
  previous?: V1NodeCondition,
): V1NodeCondition {
  const [status, reason, message] =
    verdicts.unhealthy.length > 0
      ? ['False', SYSTEMD_UNITS_READY_REASON.unhealthy, verdicts.unhealthy.join('; ')]
      : verdicts.progressing.length > 0
        ? ['True', SYSTEMD_UNITS_READY_REASON.progressing, verdicts.progressing.join('; ')]
        : ['True', SYSTEMD_UNITS_READY_REASON.healthy, ALL_UNITS_HEALTHY_MESSAGE];
  const kept = previous?.status === status && previous.lastTransitionTime !== undefined;
  return {
    type: SYSTEMD_UNITS_READY,
    status,
    reason,
    message,
    lastTransitionTime: kept ? previous.lastTransitionTime : now,
    lastHeartbeatTime: now,
  };
}
