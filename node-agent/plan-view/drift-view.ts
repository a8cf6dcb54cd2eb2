/**
 * Drift as `plan --root` shows it (docs/cli.md): one entry per drift with the action the policy
 * takes, in text as one line each, before the plan whose diffs already include the repairs.
 */
import type { DriftDecision } from '../planner/drift-policy.js';

export interface DriftView {
  readonly object: string;
  /** The path, or the unit for a unit's state. */
  readonly target: string;
  readonly kind: string;
  readonly expected: string;
  readonly actual: string;
  readonly action: string;
  readonly why: string;
}

export function driftViews(decisions: readonly DriftDecision[]): DriftView[] {
  return decisions.map(({ drift: d, action, why }) => ({
    object: d.object,
    target: d.object === 'unit' ? (d.unit ?? d.path ?? '') : (d.path ?? d.unit ?? ''),
    kind: d.kind,
    expected: d.expected,
    actual: d.actual,
    action,
    why,
  }));
}

export function formatDriftText(views: readonly DriftView[]): string {
  if (views.length === 0) return 'Drift: none, the node has what was applied last.\n\n';
  const lines = views.map(
    (v) =>
      `  ${v.action.padEnd(6)} ${v.object} ${v.target}: ${v.kind} (expected ${v.expected}, node has ${v.actual}; ${v.why})`,
  );
  return `Drift: ${views.length} difference(s) from what was applied last\n${lines.join('\n')}\n\n`;
}
