/**
 * Why a Plan acts on each unit: the file, unit file, drop-in or setting whose change made the
 * planner restart, stop or remove it. Pure and separate from `computePlan` (the plan is what the
 * agent persists and runs; the reasons are only shown), but built from the same primitives
 * (`mergedUnitsOf`, `collectAllFiles`, `semanticEqual`) and keyed on the plan itself, so a unit
 * has reasons exactly when the plan acts on it (a property test holds the two together).
 */
import { type OperatingSystemConfig, type OscFile, UNIT } from '../../api/index.js';
import { collectAllFiles } from './collect-files.js';
import { type MergedUnit, mergedUnitsOf } from './merge-units.js';
import type { Plan } from './plan.js';
import { semanticEqual } from './semantic-equal.js';

export type ChangeKind = 'added' | 'changed' | 'removed';

export type UnitReason =
  /** No previous OSC: the node's state is unknown, so everything is applied. */
  | { readonly kind: 'first-apply' }
  | { readonly kind: 'new-unit' }
  | { readonly kind: 'unit-removed' }
  /** The unit file (`content`) changed. */
  | { readonly kind: 'unit-file' }
  | { readonly kind: 'drop-in'; readonly name: string; readonly change: ChangeKind }
  /** A file listed in the unit's `filePaths` is written. */
  | { readonly kind: 'file'; readonly path: string; readonly change: Exclude<ChangeKind, 'removed'> }
  | {
      readonly kind: 'setting';
      readonly field: 'enable' | 'command' | 'filePaths';
      readonly from?: boolean | string | readonly string[];
      readonly to?: boolean | string | readonly string[];
    }
  /** An apply that was interrupted touched the unit; it is redone whatever changed. */
  | { readonly kind: 'interrupted' };

/** What the plan does with a unit, as systemd sees it. */
export type UnitAction = 'start' | 'restart' | 'stop' | 'remove';

export interface UnitExplanation {
  readonly name: string;
  readonly action: UnitAction;
  /** The agent's own unit: the agent exits and systemd starts the new one. */
  readonly nodeAgent: boolean;
  readonly reasons: readonly UnitReason[];
}

function dropInReasons(old: MergedUnit | undefined, unit: MergedUnit): UnitReason[] {
  const before = new Map((old?.dropIns ?? []).map((d) => [d.name, d]));
  const after = new Set(unit.dropIns.map((d) => d.name));
  const reasons: UnitReason[] = [];
  for (const dropIn of unit.dropIns) {
    const previous = before.get(dropIn.name);
    if (!previous) reasons.push({ kind: 'drop-in', name: dropIn.name, change: 'added' });
    else if (!semanticEqual(previous, dropIn))
      reasons.push({ kind: 'drop-in', name: dropIn.name, change: 'changed' });
  }
  for (const name of before.keys())
    if (!after.has(name)) reasons.push({ kind: 'drop-in', name, change: 'removed' });
  return reasons;
}

/** The unit's own fields the planner compares (semanticEqual: an empty list is no list). */
function settingReasons(old: MergedUnit, unit: MergedUnit): UnitReason[] {
  const reasons: UnitReason[] = [];
  const value = <T>(v: T) => (v === undefined || (Array.isArray(v) && v.length === 0) ? undefined : v);
  for (const field of ['enable', 'command', 'filePaths'] as const) {
    const from = value(old[field]);
    const to = value(unit[field]);
    if (!semanticEqual(from, to))
      reasons.push({
        kind: 'setting',
        field,
        ...(from === undefined ? {} : { from }),
        ...(to === undefined ? {} : { to }),
      });
  }
  return reasons;
}

function reasonsForWrittenUnit(
  previous: OperatingSystemConfig | undefined,
  old: MergedUnit | undefined,
  unit: MergedUnit,
  written: ReadonlyMap<string, OscFile>,
  oldPaths: ReadonlySet<string>,
): UnitReason[] {
  if (!previous) return [{ kind: 'first-apply' }];
  const reasons: UnitReason[] = [];
  if (!old) reasons.push({ kind: 'new-unit' });
  else {
    if (old.content !== unit.content) reasons.push({ kind: 'unit-file' });
    reasons.push(...settingReasons(old, unit));
  }
  reasons.push(...dropInReasons(old, unit));
  for (const path of new Set(unit.filePaths)) {
    if (written.has(path))
      reasons.push({ kind: 'file', path, change: oldPaths.has(path) ? 'changed' : 'added' });
  }
  return reasons;
}

/**
 * One entry per unit the plan acts on, in the plan's order (the agent's own unit where it stands
 * among the written units, removed units last). A unit with no reason the diff can name was put
 * into the plan by an interrupted apply.
 */
export function explainPlan(
  previous: OperatingSystemConfig | undefined,
  next: OperatingSystemConfig,
  plan: Plan,
): UnitExplanation[] {
  const oldUnits = new Map((previous ? mergedUnitsOf(previous) : []).map((u) => [u.name, u]));
  const newUnits = new Map(mergedUnitsOf(next).map((u) => [u.name, u]));
  const written = new Map(plan.files.write.map((f) => [f.path, f]));
  const oldPaths = new Set(previous ? collectAllFiles(previous).map((f) => f.path) : []);
  const commands = new Map(plan.commands.map((c) => [c.unit, c.command]));
  const explanations: UnitExplanation[] = [];

  for (const write of plan.units.write) {
    const unit = newUnits.get(write.name);
    if (!unit) continue;
    const old = oldUnits.get(write.name);
    const reasons = reasonsForWrittenUnit(previous, old, unit, written, oldPaths);
    const command = commands.get(write.name);
    const nodeAgent = write.name === UNIT.nodeAgent;
    explanations.push({
      name: write.name,
      action: command === 'stop' ? 'stop' : old || nodeAgent ? 'restart' : 'start',
      nodeAgent,
      reasons: reasons.length > 0 ? reasons : [{ kind: 'interrupted' }],
    });
  }
  for (const removal of plan.units.delete) {
    const old = oldUnits.get(removal.name);
    const reasons: UnitReason[] = removal.ownedByAgent
      ? [{ kind: 'unit-removed' }]
      : removal.dropIns.map((name) => ({ kind: 'drop-in', name, change: 'removed' }) as const);
    explanations.push({
      name: removal.name,
      action: removal.ownedByAgent ? 'remove' : 'restart',
      nodeAgent: false,
      reasons: old ? reasons : [{ kind: 'interrupted' }, ...reasons],
    });
  }
  return explanations;
}
