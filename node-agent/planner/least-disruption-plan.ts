/**
 * A plan with the least-disruption decision in it: the restarts the decision lowers are replaced
 * (Reload) or dropped (None, DaemonReload: the plan's daemon-reload already covers them), units a
 * rule adds are restarted or reloaded if systemd knows them, and the decision itself travels in
 * the plan (`disruption`), so a resumed apply runs exactly what was shown and decided.
 */
import type { OperatingSystemConfig } from '../../api/index.js';
import { computePlan, type PlanOptions } from './compute-plan.js';
import { decideDisruption, type UnitDisruption } from './decide-disruption.js';
import { rankOf } from './disruption-action.js';
import type { DisruptionPolicy } from './disruption-policy.js';
import type { Plan, PlannedCommand } from './plan.js';

function commandFor(d: UnitDisruption, ifUnitExists: boolean): PlannedCommand | undefined {
  if (rankOf(d.action) < rankOf('Reload')) return undefined;
  const command = d.action === 'Reload' ? 'reload' : 'restart';
  return {
    unit: d.unit,
    command,
    ...(ifUnitExists ? { ifUnitExists: true } : {}),
    ...(d.action === 'DrainAndRestart' ? { drain: true } : {}),
  };
}

export function withDisruption(plan: Plan, decisions: readonly UnitDisruption[]): Plan {
  const byUnit = new Map(decisions.map((d) => [d.unit, d]));
  const commands: PlannedCommand[] = [];
  const planned = new Set<string>();
  for (const c of plan.commands) {
    const d = c.command === 'restart' && !c.ifUnitExists ? byUnit.get(c.unit) : undefined;
    planned.add(c.unit);
    if (!d) {
      commands.push(c);
      continue;
    }
    const command = commandFor(d, false);
    if (command) commands.push(command);
  }
  for (const d of decisions) {
    if (planned.has(d.unit)) continue;
    const command = commandFor(d, true);
    if (command) commands.push(command);
  }
  const daemonReload = plan.daemonReload || decisions.some((d) => d.action === 'DaemonReload');
  return { ...plan, daemonReload, commands, disruption: decisions };
}

export interface LeastDisruptionOptions extends PlanOptions {
  readonly policy: DisruptionPolicy;
}

/** computePlan, then the decision; without a previous OSC everything restarts, as today. */
export function computeLeastDisruptionPlan(
  previous: OperatingSystemConfig | undefined,
  next: OperatingSystemConfig,
  options: LeastDisruptionOptions,
): Plan {
  const plan = computePlan(previous, next, options);
  return withDisruption(plan, decideDisruption(previous, next, plan, options.policy));
}
