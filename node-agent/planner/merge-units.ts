/**
 * mergeUnits (gardener v1.91.4 pkg/nodeagent/controller/operatingsystemconfig/changes.go): the
 * units of an OSC are `spec.units ++ status.extensionUnits`, and an OS extension may add drop-ins
 * or file dependencies to a unit gardenlet already declared by repeating its name. The first
 * occurrence creates the entry; later ones overwrite `enable`, `command` and `content` when they
 * set them and append `dropIns` and `filePaths`.
 */
import type { OperatingSystemConfig, OscDropIn, OscUnit } from '../../api/index.js';

/** A unit after merging; `dropIns` and `filePaths` are always present (possibly empty). */
export interface MergedUnit {
  readonly name: string;
  readonly command?: OscUnit['command'];
  readonly enable?: boolean;
  readonly content?: string;
  readonly dropIns: readonly OscDropIn[];
  readonly filePaths: readonly string[];
}

interface MutableUnit {
  name: string;
  command?: OscUnit['command'];
  enable?: boolean;
  content?: string;
  dropIns: OscDropIn[];
  filePaths: string[];
}

/**
 * A drop-in repeated under the same name replaces the earlier one in place instead of being listed
 * twice: writing both in order leaves the later content on disk anyway, and one entry per name keeps
 * the diff stable (a listed-twice drop-in would otherwise compare unequal on every reconcile).
 */
function addDropIn(dropIns: OscDropIn[], dropIn: OscDropIn): void {
  const index = dropIns.findIndex((d) => d.name === dropIn.name);
  const copy = { name: dropIn.name, content: dropIn.content };
  if (index === -1) dropIns.push(copy);
  else dropIns[index] = copy;
}

export function mergeUnits(units: readonly OscUnit[]): MergedUnit[] {
  const byName = new Map<string, MutableUnit>();
  for (const unit of units) {
    let merged = byName.get(unit.name);
    if (!merged) {
      merged = { name: unit.name, dropIns: [], filePaths: [] };
      byName.set(unit.name, merged);
    }
    if (unit.enable !== undefined) merged.enable = unit.enable;
    if (unit.command !== undefined) merged.command = unit.command;
    if (unit.content !== undefined) merged.content = unit.content;
    for (const dropIn of unit.dropIns ?? []) addDropIn(merged.dropIns, dropIn);
    merged.filePaths.push(...(unit.filePaths ?? []));
  }
  return [...byName.values()];
}

/** Every unit of an OSC, spec first, then the units the OS extension added. */
export function mergedUnitsOf(osc: OperatingSystemConfig): MergedUnit[] {
  return mergeUnits([...(osc.spec.units ?? []), ...(osc.status?.extensionUnits ?? [])]);
}
