/**
 * The one line a pool's plan starts with, e.g.
 * `restart kubelet.service ← /var/lib/kubelet/config/kubelet (maxPods 110 → 120)`: every unit
 * action with its causes (units acting for the same causes grouped), then the files no unit acts on.
 */
import { UNIT } from '../../api/index.js';
import { disruptionLine } from './disruption-view.js';
import { reasonsText } from './reason-text.js';
import type { FileView, UnitView } from './view.js';

const LISTED = 3;

function unitParts(units: readonly UnitView[]): string[] {
  const groups = new Map<string, { head: string; names: string[]; why: string }>();
  for (const unit of units) {
    const why = reasonsText(unit.reasons);
    const self = unit.name === UNIT.nodeAgent;
    const key = `${unit.action}\0${self}\0${why}`;
    const group = groups.get(key) ?? { head: unit.action, names: [], why };
    group.names.push(self ? `${unit.name} (itself)` : unit.name);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ head, names, why }) => {
    const list = names.length <= LISTED ? names.join(', ') : `${names.length} units`;
    return `${head} ${list} ${why}`;
  });
}

function fileParts(units: readonly UnitView[], files: readonly FileView[]): string[] {
  const named = new Set(units.flatMap((u) => u.reasons.flatMap((r) => (r.kind === 'file' ? [r.path] : []))));
  const others = files.filter((f) => !named.has(f.path));
  const verb = (f: FileView) => (f.change === 'removed' ? 'remove' : 'write');
  if (others.length <= LISTED) return others.map((f) => `${verb(f)} ${f.path} (${f.summary})`);
  const count = (v: string) => others.filter((f) => verb(f) === v).length;
  return ['write', 'remove'].filter((v) => count(v) > 0).map((v) => `${v} ${count(v)} files`);
}

/**
 * With a disruption policy each unit reads `kubelet.service: Restart ← …`; more than LISTED units
 * taking the same action for the same kind of cause are counted instead.
 */
function disruptionParts(units: readonly UnitView[]): string[] {
  const groups = new Map<string, string[]>();
  for (const unit of units) {
    if (!unit.disruption) continue;
    const line = disruptionLine(unit.name, unit.disruption);
    const key = line.slice(unit.name.length);
    groups.set(key, [...(groups.get(key) ?? []), unit.name]);
  }
  return [...groups].map(([rest, names]) =>
    names.length <= LISTED ? names.map((n) => `${n}${rest}`).join('; ') : `${names.length} units${rest}`,
  );
}

export function summaryLine(units: readonly UnitView[], files: readonly FileView[]): string {
  const withPolicy = units.filter((u) => u.disruption);
  const others = units.filter((u) => !u.disruption);
  return [...disruptionParts(withPolicy), ...unitParts(others), ...fileParts(units, files)].join('; ');
}
