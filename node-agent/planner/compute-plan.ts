/**
 * computePlan (gardener v1.91.4 pkg/nodeagent/controller/operatingsystemconfig/changes.go,
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go): the diff between the last applied
 * OSC and the next one, turned into a Plan. Pure: no I/O, the same inputs always give the same
 * plan.
 */
import { type OperatingSystemConfig, type OscFile, UNIT } from '../../api/index.js';
import { collectAllFiles } from './collect-files.js';
import { type MergedUnit, mergedUnitsOf } from './merge-units.js';
import type { Plan, PlannedCommand, PlannedUnitRemoval, PlannedUnitWrite } from './plan.js';
import { semanticEqual } from './semantic-equal.js';
import { commandOf, enablementOf } from './unit-actions.js';
import { isUnitConfigurationPath } from './unit-directories.js';

export interface PlanOptions {
  /**
   * The plan of an apply that was interrupted before it finished and whose OSC has been superseded.
   * Anything it may have done counts as possibly applied: what it touched and the next OSC still
   * has is rewritten (and restarted), what it created and the next OSC lacks is removed.
   */
  readonly interrupted?: Plan;
}

interface UnitChange {
  readonly writeDropIns: Set<string>;
  readonly deleteDropIns: string[];
}

interface UnitRemoval {
  readonly ownedByAgent: boolean;
  readonly dropIns: string[];
}

interface Diff {
  readonly changedPaths: Set<string>;
  readonly deletedPaths: string[];
  readonly changedUnits: Map<string, UnitChange>;
  readonly deletedUnits: Map<string, UnitRemoval>;
}

const names = (items: readonly { name: string }[]): string[] => items.map((i) => i.name);

function pushNew<T>(list: T[], ...items: readonly T[]): void {
  for (const item of items) if (!list.includes(item)) list.push(item);
}

/** Without a previous OSC the state of the node is unknown: everything is changed, nothing deleted. */
function everythingChanged(files: readonly OscFile[], units: readonly MergedUnit[]): Diff {
  return {
    changedPaths: new Set(files.map((f) => f.path)),
    deletedPaths: [],
    changedUnits: new Map(
      units.map((u) => [u.name, { writeDropIns: new Set(names(u.dropIns)), deleteDropIns: [] }]),
    ),
    deletedUnits: new Map(),
  };
}

function diffAgainst(
  previous: OperatingSystemConfig,
  files: readonly OscFile[],
  units: readonly MergedUnit[],
): Diff {
  const oldFiles = collectAllFiles(previous);
  const oldFileByPath = new Map(oldFiles.map((f) => [f.path, f]));
  const newPaths = new Set(files.map((f) => f.path));
  const changedPaths = new Set(
    files.filter((f) => !semanticEqual(oldFileByPath.get(f.path), f)).map((f) => f.path),
  );
  const deletedPaths = oldFiles.filter((f) => !newPaths.has(f.path)).map((f) => f.path);

  const oldUnits = mergedUnitsOf(previous);
  const oldUnitByName = new Map(oldUnits.map((u) => [u.name, u]));
  const newNames = new Set(names(units));
  const deletedUnits = new Map<string, UnitRemoval>(
    oldUnits
      .filter((u) => !newNames.has(u.name))
      .map((u) => [u.name, { ownedByAgent: u.content !== undefined, dropIns: names(u.dropIns) }]),
  );

  const changedUnits = new Map<string, UnitChange>();
  for (const unit of units) {
    const old = oldUnitByName.get(unit.name);
    // Deleted files do not count: a unit only restarts for what it will find on disk.
    const touched = unit.filePaths.some((p) => changedPaths.has(p));
    if (old && semanticEqual(old, unit) && !touched) continue;
    const oldDropIns = new Map((old?.dropIns ?? []).map((d) => [d.name, d]));
    const newDropInNames = new Set(names(unit.dropIns));
    changedUnits.set(unit.name, {
      writeDropIns: new Set(names(unit.dropIns.filter((d) => !semanticEqual(oldDropIns.get(d.name), d)))),
      deleteDropIns: names(old?.dropIns ?? []).filter((n) => !newDropInNames.has(n)),
    });
  }
  return { changedPaths, deletedPaths, changedUnits, deletedUnits };
}

function widenByInterrupted(
  diff: Diff,
  interrupted: Plan,
  files: readonly OscFile[],
  units: readonly MergedUnit[],
): void {
  const newPaths = new Set(files.map((f) => f.path));
  const deleted = new Set(diff.deletedPaths);
  for (const path of [...interrupted.files.write.map((f) => f.path), ...interrupted.files.delete]) {
    if (newPaths.has(path)) diff.changedPaths.add(path);
    else if (!deleted.has(path)) {
      deleted.add(path);
      diff.deletedPaths.push(path);
    }
  }

  const unitByName = new Map(units.map((u) => [u.name, u]));
  const touched = [
    ...names(interrupted.units.write),
    ...names(interrupted.units.delete),
    ...interrupted.commands.map((c) => c.unit),
    ...interrupted.enable,
    ...interrupted.disable,
  ];
  const writes = new Map(interrupted.units.write.map((w) => [w.name, w]));
  const removals = new Map(interrupted.units.delete.map((r) => [r.name, r]));
  const droppedBy = (unit: string): string[] => {
    const write = writes.get(unit);
    const removal = removals.get(unit);
    return [
      ...names(write?.dropIns.write ?? []),
      ...(write?.dropIns.delete ?? []),
      ...(removal?.dropIns ?? []),
    ];
  };

  for (const name of touched) {
    const unit = unitByName.get(name);
    if (!unit) continue;
    const keep = new Set(names(unit.dropIns));
    const deleteDropIns = [...(diff.changedUnits.get(name)?.deleteDropIns ?? [])];
    pushNew(deleteDropIns, ...droppedBy(name).filter((n) => !keep.has(n)));
    diff.changedUnits.set(name, { writeDropIns: keep, deleteDropIns });
  }

  const gone = [
    ...interrupted.units.write.map((w) => ({ name: w.name, ownedByAgent: w.content !== undefined })),
    ...interrupted.units.delete.map((r) => ({ name: r.name, ownedByAgent: r.ownedByAgent })),
  ].filter((u) => !unitByName.has(u.name));
  for (const { name, ownedByAgent } of gone) {
    const known = diff.deletedUnits.get(name);
    const dropIns = [...(known?.dropIns ?? [])];
    pushNew(dropIns, ...droppedBy(name));
    diff.deletedUnits.set(name, { ownedByAgent: ownedByAgent || (known?.ownedByAgent ?? false), dropIns });
  }
}

function planUnitWrite(unit: MergedUnit, change: UnitChange): PlannedUnitWrite {
  const removeDirectory = unit.dropIns.length === 0;
  return {
    name: unit.name,
    ...(unit.content !== undefined ? { content: unit.content } : {}),
    dropIns: removeDirectory
      ? { write: [], delete: [], removeDirectory }
      : {
          write: unit.dropIns.filter((d) => change.writeDropIns.has(d.name)),
          delete: change.deleteDropIns,
          removeDirectory,
        },
  };
}

function buildPlan(diff: Diff, files: readonly OscFile[], units: readonly MergedUnit[]): Plan {
  const unitWrites: PlannedUnitWrite[] = [];
  const enable: string[] = [];
  const disable: string[] = [];
  const commands: PlannedCommand[] = [];
  let mustRestartNodeAgent = false;

  for (const unit of units) {
    const change = diff.changedUnits.get(unit.name);
    if (!change) continue;
    unitWrites.push(planUnitWrite(unit, change));
    (enablementOf(unit) === 'enable' ? enable : disable).push(unit.name);
    const command = commandOf(unit);
    if (command === 'restart-node-agent') mustRestartNodeAgent = true;
    else commands.push({ unit: unit.name, command });
  }

  const removals: PlannedUnitRemoval[] = [];
  for (const [name, removal] of diff.deletedUnits) {
    // The agent never stops or deletes the unit it runs in; an OSC without it is a mistake upstream.
    if (name === UNIT.nodeAgent) continue;
    if (removal.ownedByAgent) {
      removals.push({ name, ownedByAgent: true, dropIns: [] });
    } else if (removal.dropIns.length > 0) {
      removals.push({ name, ownedByAgent: false, dropIns: removal.dropIns });
      commands.push({ unit: name, command: 'restart', ifUnitExists: true });
    }
  }

  const fileWrites = files.filter((f) => diff.changedPaths.has(f.path));
  // a unit file or drop-in that arrives as a file of spec.files counts as much as one of spec.units
  const unitConfigurationFiles = [...fileWrites.map((f) => f.path), ...diff.deletedPaths].some(
    isUnitConfigurationPath,
  );
  return {
    files: { write: fileWrites, delete: diff.deletedPaths },
    units: { write: unitWrites, delete: removals },
    enable,
    disable,
    daemonReload: unitWrites.length > 0 || removals.length > 0 || unitConfigurationFiles,
    mustRestartNodeAgent,
    commands,
  };
}

export function computePlan(
  previous: OperatingSystemConfig | undefined,
  next: OperatingSystemConfig,
  options: PlanOptions = {},
): Plan {
  const files = collectAllFiles(next);
  const units = mergedUnitsOf(next);
  const diff = previous ? diffAgainst(previous, files, units) : everythingChanged(files, units);
  if (options.interrupted) widenByInterrupted(diff, options.interrupted, files, units);
  return buildPlan(diff, files, units);
}
