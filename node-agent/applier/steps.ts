/**
 * A Plan flattened into the ordered steps the applier runs and checks off one by one. Each step
 * does at most one systemd call, so after a crash at most the one step that was in flight repeats.
 * The order (gardener v1.91.4 pkg/nodeagent/controller/operatingsystemconfig/reconciler.go,
 * with the self-restart point of v1.147, docs/compatibility.md N3):
 *   files -> unit files and drop-ins -> enable/disable -> removed units
 *   -> deleted files in systemd's unit directories -> daemon-reload -> self-restart
 *   -> [cordon, evict pods] -> unit commands -> [wait for Ready, uncordon] -> other deleted files
 * (the bracketed steps only for a DrainAndRestart, docs/least-disruption.md)
 * A drop-in or unit file removed through spec.files is deleted before the reload, or systemd would
 * keep it loaded until some later apply reloads; every other file outlives the unit commands, so a
 * unit being stopped still finds what it runs.
 */
import type { Plan } from '../planner/plan.js';
import { isUnitConfigurationPath } from '../planner/unit-directories.js';

export type Step =
  | { readonly op: 'write-file'; readonly path: string }
  | { readonly op: 'write-unit'; readonly unit: string }
  | { readonly op: 'write-drop-in'; readonly unit: string; readonly dropIn: string }
  | { readonly op: 'delete-drop-in'; readonly unit: string; readonly dropIn: string }
  | { readonly op: 'remove-drop-in-dir'; readonly unit: string }
  | { readonly op: 'remove-drop-in-dir-if-empty'; readonly unit: string }
  | { readonly op: 'enable'; readonly unit: string }
  | { readonly op: 'disable'; readonly unit: string }
  | { readonly op: 'disable-removed-unit'; readonly unit: string }
  | { readonly op: 'stop-removed-unit'; readonly unit: string }
  | { readonly op: 'delete-unit-file'; readonly unit: string }
  | { readonly op: 'daemon-reload' }
  | { readonly op: 'restart-node-agent' }
  | { readonly op: 'restart'; readonly unit: string; readonly ifUnitExists?: boolean }
  | { readonly op: 'stop'; readonly unit: string }
  | { readonly op: 'reload'; readonly unit: string; readonly ifUnitExists?: boolean }
  | { readonly op: 'cordon-node' }
  | { readonly op: 'evict-pods' }
  | { readonly op: 'wait-node-ready' }
  | { readonly op: 'uncordon-node' }
  | { readonly op: 'delete-file'; readonly path: string };

/** A step's name in the progress file, e.g. `restart kubelet.service`, `write-drop-in unit5/drop1`. */
export function stepId(step: Step): string {
  if ('path' in step) return `${step.op} ${step.path}`;
  if ('dropIn' in step) return `${step.op} ${step.unit}/${step.dropIn}`;
  if ('unit' in step) return `${step.op} ${step.unit}`;
  return step.op;
}

/**
 * Unit commands run to the end even when one fails (gardener v1.91.4
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go: all attempted, errors aggregated).
 */
export function isUnitCommand(step: Step): boolean {
  return step.op === 'restart' || step.op === 'stop' || step.op === 'reload';
}

export function planSteps(plan: Plan): Step[] {
  const steps: Step[] = plan.files.write.map((f) => ({ op: 'write-file', path: f.path }));
  for (const unit of plan.units.write) {
    if (unit.content !== undefined) steps.push({ op: 'write-unit', unit: unit.name });
    if (unit.dropIns.removeDirectory) {
      steps.push({ op: 'remove-drop-in-dir', unit: unit.name });
      continue;
    }
    for (const d of unit.dropIns.write) steps.push({ op: 'write-drop-in', unit: unit.name, dropIn: d.name });
    for (const d of unit.dropIns.delete) steps.push({ op: 'delete-drop-in', unit: unit.name, dropIn: d });
  }
  for (const unit of plan.enable) steps.push({ op: 'enable', unit });
  for (const unit of plan.disable) steps.push({ op: 'disable', unit });
  for (const removal of plan.units.delete) {
    const unit = removal.name;
    if (removal.ownedByAgent) {
      steps.push(
        { op: 'disable-removed-unit', unit },
        { op: 'stop-removed-unit', unit },
        { op: 'delete-unit-file', unit },
        { op: 'remove-drop-in-dir', unit },
      );
    } else {
      for (const dropIn of removal.dropIns) steps.push({ op: 'delete-drop-in', unit, dropIn });
      steps.push({ op: 'remove-drop-in-dir-if-empty', unit });
    }
  }
  const deleteFile = (path: string): Step => ({ op: 'delete-file', path });
  steps.push(...plan.files.delete.filter(isUnitConfigurationPath).map(deleteFile));
  if (plan.daemonReload) steps.push({ op: 'daemon-reload' });
  if (plan.mustRestartNodeAgent) steps.push({ op: 'restart-node-agent' });
  // DrainAndRestart (docs/least-disruption.md): the node is emptied before the unit commands
  const drain = plan.commands.some((c) => c.drain);
  if (drain) steps.push({ op: 'cordon-node' }, { op: 'evict-pods' });
  for (const c of plan.commands) {
    const ifUnitExists = c.ifUnitExists ? { ifUnitExists: true } : {};
    if (c.command === 'stop') steps.push({ op: 'stop', unit: c.unit });
    else if (c.command === 'reload') steps.push({ op: 'reload', unit: c.unit, ...ifUnitExists });
    else steps.push({ op: 'restart', unit: c.unit, ...ifUnitExists });
  }
  if (drain) steps.push({ op: 'wait-node-ready' }, { op: 'uncordon-node' });
  steps.push(...plan.files.delete.filter((path) => !isUnitConfigurationPath(path)).map(deleteFile));

  const seen = new Set<string>();
  for (const step of steps) {
    const id = stepId(step);
    if (seen.has(id)) throw new Error(`plan has the step "${id}" twice`);
    seen.add(id);
  }
  return steps;
}
