/**
 * What systemd does with a changed unit (gardener v1.91.4
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go, N-TV-32), with the rules this
 * project chose: the node agent's own unit is always enabled and never restarted through systemd
 * (the agent restarts itself), `gardener-node-init.service` is never enabled or started (its job
 * ends once the agent runs), and `start` means restart.
 */
import { UNIT } from '../../api/index.js';
import type { MergedUnit } from './merge-units.js';
import type { UnitCommandAction } from './plan.js';

export type Enablement = 'enable' | 'disable';

export function enablementOf(unit: Pick<MergedUnit, 'name' | 'enable'>): Enablement {
  if (unit.name === UNIT.nodeAgent) return 'enable';
  if (unit.name === UNIT.nodeInit) return 'disable';
  return unit.enable === false ? 'disable' : 'enable';
}

/** `restart-node-agent` is no systemd call: the agent exits and systemd starts the new one. */
export function commandOf(
  unit: Pick<MergedUnit, 'name' | 'enable' | 'command'>,
): UnitCommandAction | 'restart-node-agent' {
  if (unit.name === UNIT.nodeAgent) return 'restart-node-agent';
  if (unit.name === UNIT.nodeInit) return 'stop';
  return unit.enable === false || unit.command === 'stop' ? 'stop' : 'restart';
}
