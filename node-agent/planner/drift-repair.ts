/**
 * How a repair of drift becomes a Plan the applier runs like any other (prepare, then commit, with
 * the crash journal), pure. Two parts:
 *
 *  - `observedOsc`: the last applied OSC with the node's version of every drifted file, unit file
 *    and drop-in in it (a missing one left out, an extra drop-in added). Planning the next OSC
 *    against it is planning against the node as it is, like `terraform plan` refreshes first: the
 *    least-disruption rules see the real change (a comment edited into kubelet's unit restarts
 *    nothing, an edited kubelet config restarts kubelet) and only the units owning what changed
 *    are touched.
 *  - `withDriftRepairs`: what needs no restart at all: a mode or an owner (the file is written again
 *    with the same bytes), enablement (enable or disable), a mask (its symlink removed, then
 *    daemon-reload and a restart of the unit), a unit that should run and does not (a restart).
 *
 * A drift of something the next OSC no longer has is left to the plan, which removes it anyway.
 */
import type { OperatingSystemConfig, OscDropIn, OscFile, OscUnit } from '../../api/index.js';
import { collectAllFiles } from './collect-files.js';
import type { Drift } from './drift.js';
import { mergedUnitsOf } from './merge-units.js';
import type { Plan, PlannedCommand, PlannedUnitWrite } from './plan.js';
import { commandOf, enablementOf } from './unit-actions.js';

const CONTENT_KINDS: ReadonlySet<Drift['kind']> = new Set(['content', 'missing', 'type']);

function nodeContent(d: Drift): string {
  return d.actualContent === undefined ? '' : Buffer.from(d.actualContent, 'base64').toString('utf8');
}

function observedFiles(
  files: readonly OscFile[] | undefined,
  drifts: readonly Drift[],
): OscFile[] | undefined {
  if (!files) return files;
  const out: OscFile[] = [];
  for (const f of files) {
    const d = drifts.find((x) => x.object === 'file' && x.path === f.path && CONTENT_KINDS.has(x.kind));
    if (!d) out.push(f);
    else if (d.kind === 'content' && d.actualContent !== undefined)
      out.push({ ...f, content: { inline: { encoding: 'b64', data: d.actualContent } } });
    // missing, or not a file: the node has none of it
  }
  return out;
}

function observedDropIns(unit: OscUnit, drifts: readonly Drift[]): OscDropIn[] | undefined {
  if (!unit.dropIns) return unit.dropIns;
  const out: OscDropIn[] = [];
  for (const dropIn of unit.dropIns) {
    const d = drifts.find(
      (x) => x.object === 'drop-in' && x.unit === unit.name && x.path?.endsWith(`/${dropIn.name}`),
    );
    if (!d || !CONTENT_KINDS.has(d.kind)) out.push(dropIn);
    else if (d.kind === 'content') out.push({ ...dropIn, content: nodeContent(d) });
  }
  return out;
}

function observedUnits(
  units: readonly OscUnit[] | undefined,
  drifts: readonly Drift[],
): OscUnit[] | undefined {
  if (!units) return units;
  return units.map((u) => {
    const file = drifts.find(
      (x) => x.object === 'unit-file' && x.unit === u.name && CONTENT_KINDS.has(x.kind),
    );
    const content = file && u.content !== undefined ? { content: nodeContent(file) } : {};
    const dropIns = observedDropIns(u, drifts);
    return { ...u, ...content, ...(dropIns ? { dropIns } : {}) };
  });
}

/** Extra drop-ins the node has go to the first entry of their unit, so the plan removes them. */
function withExtraDropIns(units: OscUnit[], drifts: readonly Drift[]): OscUnit[] {
  const extras = drifts.filter((d) => d.kind === 'extra-drop-in' && d.unit && d.path);
  if (extras.length === 0) return units;
  return units.map((u, i) => {
    if (units.findIndex((v) => v.name === u.name) !== i) return u;
    const mine = extras.filter((d) => d.unit === u.name);
    if (mine.length === 0) return u;
    const added = mine.map((d) => ({
      name: (d.path as string).split('/').pop() as string,
      content: nodeContent(d),
    }));
    return { ...u, dropIns: [...(u.dropIns ?? []), ...added] };
  });
}

export function observedOsc(
  previous: OperatingSystemConfig,
  repairs: readonly Drift[],
): OperatingSystemConfig {
  if (repairs.length === 0) return previous;
  const units = withExtraDropIns(observedUnits(previous.spec.units, repairs) ?? [], repairs);
  const status = previous.status && {
    ...previous.status,
    extensionFiles: observedFiles(previous.status.extensionFiles, repairs),
    extensionUnits: observedUnits(previous.status.extensionUnits, repairs),
  };
  return {
    ...previous,
    spec: { ...previous.spec, files: observedFiles(previous.spec.files, repairs), units },
    ...(status ? { status } : {}),
  };
}

function pushNew<T>(list: T[], item: T, same: (a: T) => boolean): void {
  if (!list.some(same)) list.push(item);
}

/** A unit file or drop-in written again with the same bytes: restores its mode and owner. */
function rewriteUnitPart(writes: PlannedUnitWrite[], d: Drift, next: OperatingSystemConfig): void {
  const unit = mergedUnitsOf(next).find((u) => u.name === d.unit);
  if (!unit) return;
  const index = writes.findIndex((w) => w.name === unit.name);
  const existing = writes[index];
  const dropIn =
    d.object === 'drop-in' ? unit.dropIns.find((x) => d.path?.endsWith(`/${x.name}`)) : undefined;
  if (d.object === 'drop-in' && !dropIn) return;
  if (!existing) {
    writes.push({
      name: unit.name,
      ...(d.object === 'unit-file' && unit.content !== undefined ? { content: unit.content } : {}),
      dropIns: { write: dropIn ? [dropIn] : [], delete: [], removeDirectory: false },
    });
    return;
  }
  if (existing.dropIns.removeDirectory) return;
  if (d.object === 'unit-file' && existing.content === undefined && unit.content !== undefined)
    writes[index] = { ...existing, content: unit.content };
  if (dropIn && !existing.dropIns.write.some((x) => x.name === dropIn.name))
    writes[index] = {
      ...(writes[index] as PlannedUnitWrite),
      dropIns: { ...existing.dropIns, write: [...existing.dropIns.write, dropIn] },
    };
}

export function withDriftRepairs(plan: Plan, repairs: readonly Drift[], next: OperatingSystemConfig): Plan {
  if (repairs.length === 0) return plan;
  const files = [...plan.files.write];
  const deletes = [...plan.files.delete];
  const unitWrites = [...plan.units.write];
  const enable = [...plan.enable];
  const disable = [...plan.disable];
  const commands: PlannedCommand[] = [...plan.commands];
  let daemonReload = plan.daemonReload;
  const nextFiles = new Map(collectAllFiles(next).map((f) => [f.path, f]));
  const nextUnits = new Map(mergedUnitsOf(next).map((u) => [u.name, u]));
  const restart = (unit: string) => {
    const u = nextUnits.get(unit);
    if (u && commandOf(u) === 'restart')
      pushNew(commands, { unit, command: 'restart' }, (c) => c.unit === unit);
  };

  for (const d of repairs) {
    if (d.kind === 'mode' || d.kind === 'owner') {
      if (d.object === 'file') {
        const file = d.path === undefined ? undefined : nextFiles.get(d.path);
        if (file) pushNew(files, file, (f) => f.path === file.path);
      } else rewriteUnitPart(unitWrites, d, next);
    } else if (d.kind === 'enablement' && d.unit) {
      const u = nextUnits.get(d.unit);
      if (!u || enable.includes(u.name) || disable.includes(u.name)) continue;
      (enablementOf(u) === 'enable' ? enable : disable).push(u.name);
    } else if (d.kind === 'masked' && d.unit && d.path && nextUnits.has(d.unit)) {
      pushNew(deletes, d.path, (p) => p === d.path);
      daemonReload = true;
      restart(d.unit);
    } else if (d.kind === 'not-running' && d.unit) {
      restart(d.unit);
    }
  }
  return {
    ...plan,
    files: { write: files, delete: deletes },
    units: { ...plan.units, write: unitWrites },
    enable,
    disable,
    daemonReload,
    commands,
  };
}

/** The drifts a repair rewrites through `observedOsc` (the rest go through `withDriftRepairs`). */
export function isContentDrift(d: Drift): boolean {
  return CONTENT_KINDS.has(d.kind) || d.kind === 'extra-drop-in';
}
