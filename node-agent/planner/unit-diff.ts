/**
 * The semantic difference of two unit configurations: which directives systemd would see changed,
 * ignoring comments, whitespace, line breaks of continuations and the order of distinct directives
 * (unit-file.ts), and what that change needs:
 *   - nothing changed as systemd sees it            → None ("no effective change")
 *   - only `[Install]`                              → None: enable/disable re-reads it, the running
 *                                                     unit does not use it (systemd.unit(5) [Install])
 *   - only `Description=`/`Documentation=` of [Unit] → DaemonReload: systemd shows the new text after
 *                                                     the reload, the process does not read it
 *   - anything else                                 → Restart
 */
import { type DisruptionAction, strongest } from './disruption-action.js';
import type { UnitSections } from './unit-file.js';

export interface DirectiveChange {
  readonly section: string;
  readonly key: string;
  readonly from: readonly string[];
  readonly to: readonly string[];
}

export interface UnitDiff {
  readonly changes: readonly DirectiveChange[];
  readonly action: DisruptionAction;
  /** One line: `no effective change`, `[Install] only`, `[Service] ExecStart`. */
  readonly summary: string;
}

const METADATA_ONLY = new Set(['Description', 'Documentation']);

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export function directiveChanges(before: UnitSections, after: UnitSections): DirectiveChange[] {
  const changes: DirectiveChange[] = [];
  const sections = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const section of sections) {
    const from = before.get(section) ?? new Map<string, readonly string[]>();
    const to = after.get(section) ?? new Map<string, readonly string[]>();
    const keys = [...new Set([...from.keys(), ...to.keys()])].sort();
    for (const key of keys) {
      const a = from.get(key) ?? [];
      const b = to.get(key) ?? [];
      if (!sameValues(a, b)) changes.push({ section, key, from: a, to: b });
    }
  }
  return changes;
}

function actionFor(change: DirectiveChange): DisruptionAction {
  if (change.section === 'Install') return 'None';
  if (change.section === 'Unit' && METADATA_ONLY.has(change.key)) return 'DaemonReload';
  return 'Restart';
}

function summaryOf(changes: readonly DirectiveChange[]): string {
  if (changes.length === 0) return 'no effective change';
  if (changes.every((c) => c.section === 'Install')) return '[Install] only';
  const shown = changes.slice(0, 3).map((c) => `[${c.section}] ${c.key}`);
  return changes.length > 3 ? `${shown.join(', ')}, …` : shown.join(', ');
}

export function unitDiff(before: UnitSections, after: UnitSections): UnitDiff {
  const changes = directiveChanges(before, after);
  return { changes, action: strongest(changes.map(actionFor)), summary: summaryOf(changes) };
}
