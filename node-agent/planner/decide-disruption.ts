/**
 * The least-disruption decision, pure: for every unit the plan would restart, the gentlest action
 * that still makes each of its changes take effect, with the cause of each (docs/least-disruption.md).
 *
 *   - the unit file and drop-ins: the semantic diff (unit-diff.ts): a comment is None, `[Install]`
 *     alone is None (the plan re-enables the unit anyway), Description= is DaemonReload;
 *   - a file of its filePaths: the policy's rule for the unit, else the policy's rule for the path,
 *     else the default rule for the path (defaults.ts), else today's Restart;
 *   - a new unit, a first apply, a changed `enable` or `command`, an interrupted apply: Restart,
 *     as today; a change of `filePaths` alone: None (it only names what to watch).
 *
 * A rule may name units that do not list the file (journald.conf → systemd-journald.service):
 * they are restarted (or reloaded) if systemd knows them. `Reload` of a unit whose configuration
 * has no `ExecReload=` is a Restart: a reload that does nothing would leave the change without
 * effect. Unit stops, removals and the agent's own restart are not decided here: they stay as the
 * plan has them.
 */
import type { OperatingSystemConfig } from '../../api/index.js';
import { UNIT } from '../../api/index.js';
import { type DisruptionAction, strongest } from './disruption-action.js';
import { DEFAULT_PATH_RULES } from './disruption-defaults.js';
import { type DisruptionPolicy, type PathRule, pathMatches } from './disruption-policy.js';
import { explainPlan, type UnitReason } from './explain.js';
import { type MergedUnit, mergedUnitsOf } from './merge-units.js';
import type { Plan } from './plan.js';
import { unitDiff } from './unit-diff.js';
import { parseUnitWithDropIns } from './unit-file.js';

export type CauseRule = 'semantic-diff' | 'policy-unit' | 'policy-path' | 'default' | 'fallback';

export interface DisruptionCause {
  readonly action: DisruptionAction;
  /** What changed: `unit file`, a file's path, `enable`, `new unit`, … */
  readonly source: string;
  /** The path, when a file changed. */
  readonly path?: string;
  /** Why this action: `no effective change`, `[Service] ExecStart`, a rule's reason. */
  readonly why: string;
  readonly rule: CauseRule;
}

export interface UnitDisruption {
  readonly unit: string;
  readonly action: DisruptionAction;
  /** What the agent did without this decision: Restart for a unit the plan restarted, else None. */
  readonly baseline: DisruptionAction;
  readonly causes: readonly DisruptionCause[];
}

const FALLBACK_WHY = 'no rule for it: restart, as without a policy';

interface RuleHit {
  readonly rule: PathRule;
  readonly from: 'policy-path' | 'default';
}

function ruleFor(path: string, policy: DisruptionPolicy): RuleHit | undefined {
  const own = policy.paths.find((r) => pathMatches(r.path, path));
  if (own) return { rule: own, from: 'policy-path' };
  const builtIn = DEFAULT_PATH_RULES.find((r) => pathMatches(r.path, path));
  return builtIn && { rule: builtIn, from: 'default' };
}

function fileCause(unit: string, path: string, policy: DisruptionPolicy): DisruptionCause {
  const unitRule = policy.units.find((r) => r.unit === unit);
  if (unitRule)
    return {
      action: unitRule.action,
      source: path,
      path,
      why: unitRule.reason ?? `policy for ${unit}`,
      rule: 'policy-unit',
    };
  const hit = ruleFor(path, policy);
  if (hit)
    return {
      action: hit.rule.action,
      source: path,
      path,
      why: hit.rule.reason ?? `policy for ${hit.rule.path}`,
      rule: hit.from,
    };
  return { action: 'Restart', source: path, path, why: FALLBACK_WHY, rule: 'fallback' };
}

function wholeUnitCause(source: string): DisruptionCause {
  return { action: 'Restart', source, why: 'as without a policy', rule: 'fallback' };
}

function settingCause(reason: Extract<UnitReason, { kind: 'setting' }>): DisruptionCause {
  if (reason.field === 'filePaths')
    return {
      action: 'None',
      source: 'filePaths',
      why: 'filePaths only name what to watch',
      rule: 'semantic-diff',
    };
  return { action: 'Restart', source: reason.field, why: 'as without a policy', rule: 'fallback' };
}

function unitConfigCause(old: MergedUnit | undefined, unit: MergedUnit): DisruptionCause {
  const diff = unitDiff(
    parseUnitWithDropIns(old?.content, old?.dropIns ?? []),
    parseUnitWithDropIns(unit.content, unit.dropIns),
  );
  return { action: diff.action, source: 'unit file and drop-ins', why: diff.summary, rule: 'semantic-diff' };
}

function causesOf(
  reasons: readonly UnitReason[],
  old: MergedUnit | undefined,
  unit: MergedUnit,
  policy: DisruptionPolicy,
): DisruptionCause[] {
  const causes: DisruptionCause[] = [];
  let configCounted = false;
  for (const reason of reasons) {
    switch (reason.kind) {
      case 'first-apply':
        causes.push(wholeUnitCause('first apply'));
        break;
      case 'new-unit':
        causes.push(wholeUnitCause('new unit'));
        break;
      case 'interrupted':
        causes.push(wholeUnitCause('an interrupted apply touched it'));
        break;
      case 'unit-removed':
        causes.push(wholeUnitCause('removed'));
        break;
      case 'setting':
        causes.push(settingCause(reason));
        break;
      case 'unit-file':
      case 'drop-in':
        if (!configCounted) causes.push(unitConfigCause(old, unit));
        configCounted = true;
        break;
      case 'file':
        causes.push(fileCause(unit.name, reason.path, policy));
        break;
    }
  }
  return causes;
}

function canReload(unit: MergedUnit | undefined): boolean {
  // An OS unit the OSC only adds drop-ins to: what it ships is unknown here, the policy decides.
  if (!unit || unit.content === undefined) {
    const reload = unit && parseUnitWithDropIns(undefined, unit.dropIns).get('Service')?.get('ExecReload');
    return reload === undefined || reload.length > 0;
  }
  return (
    (parseUnitWithDropIns(unit.content, unit.dropIns).get('Service')?.get('ExecReload')?.length ?? 0) > 0
  );
}

function checkedReload(cause: DisruptionCause, unit: MergedUnit | undefined): DisruptionCause {
  if (cause.action !== 'Reload' || canReload(unit)) return cause;
  return { ...cause, action: 'Restart', why: `${cause.why}; the unit has no ExecReload=, so restart` };
}

function decision(unit: string, baseline: DisruptionAction, causes: DisruptionCause[]): UnitDisruption {
  return { unit, action: strongest(causes.map((c) => c.action)), baseline, causes };
}

export function decideDisruption(
  previous: OperatingSystemConfig | undefined,
  next: OperatingSystemConfig,
  plan: Plan,
  policy: DisruptionPolicy,
): UnitDisruption[] {
  const oldUnits = new Map((previous ? mergedUnitsOf(previous) : []).map((u) => [u.name, u]));
  const newUnits = mergedUnitsOf(next);
  const byName = new Map(newUnits.map((u) => [u.name, u]));
  const restarted = new Set(plan.commands.filter((c) => c.command === 'restart').map((c) => c.unit));
  const written = new Set(plan.units.write.map((u) => u.name));
  const causes = new Map<string, DisruptionCause[]>();
  const add = (unit: string, cause: DisruptionCause) => {
    const list = causes.get(unit) ?? [];
    list.push(checkedReload(cause, byName.get(unit)));
    causes.set(unit, list);
  };

  for (const explained of explainPlan(previous, next, plan)) {
    const unit = byName.get(explained.name);
    if (!unit || explained.nodeAgent || !written.has(unit.name) || !restarted.has(unit.name)) continue;
    for (const cause of causesOf(explained.reasons, oldUnits.get(unit.name), unit, policy))
      add(unit.name, cause);
  }

  // Files that name units by rule, whether or not those units list them.
  for (const file of plan.files.write) {
    const hit = ruleFor(file.path, policy);
    for (const name of hit?.rule.units ?? []) {
      if (name === UNIT.nodeAgent) continue;
      if (causes.get(name)?.some((c) => c.path === file.path)) continue;
      const owner = byName.get(name);
      if (owner && written.has(name) && !restarted.has(name)) continue; // stopped or disabled by the plan
      add(name, fileCause(name, file.path, policy));
    }
  }

  return [...causes].map(([name, list]) =>
    decision(name, restarted.has(name) && written.has(name) ? 'Restart' : 'None', list),
  );
}
