/**
 * What the agent does with a drift (drift.ts), per path or unit: `Report` (say so, change
 * nothing), `Repair` (rewrite it through the applier, restarting only what the least-disruption
 * rules ask for), `Adopt` (take the node's version as known and stop reporting it). The rules are
 * the operator's, in the `drift` list of the DisruptionPolicy file (disruption-policy.ts); the
 * first rule that matches wins, else the default: Repair for what gardenlet renders, Report for
 * the rest (the OS extension's files and units, drop-ins nothing of ours wrote) and for a unit
 * that does not run (restarting a failing unit is systemd's `Restart=`, which the agent must not
 * fight every check). Pure.
 */

import { pathMatches } from './disruption-policy.js';
import type { Drift, DriftKind } from './drift.js';

export const DRIFT_ACTIONS = ['Report', 'Repair', 'Adopt'] as const;
export type DriftAction = (typeof DRIFT_ACTIONS)[number];

export function isDriftAction(value: unknown): value is DriftAction {
  return typeof value === 'string' && (DRIFT_ACTIONS as readonly string[]).includes(value);
}

/** A rule matches a drift by path (glob as in disruption-policy.ts) or unit, and optionally by kind. */
export interface DriftRule {
  readonly path?: string;
  readonly unit?: string;
  readonly kinds?: readonly DriftKind[];
  readonly action: DriftAction;
  readonly reason?: string;
}

export interface DriftDecision {
  readonly drift: Drift;
  readonly action: DriftAction;
  readonly why: string;
}

function matches(rule: DriftRule, d: Drift): boolean {
  if (rule.kinds && !rule.kinds.includes(d.kind)) return false;
  if (rule.path !== undefined) return d.path !== undefined && pathMatches(rule.path, d.path);
  if (rule.unit !== undefined) return d.unit === rule.unit;
  return true;
}

function defaultDecision(d: Drift): Omit<DriftDecision, 'drift'> {
  if (d.kind === 'not-running')
    return { action: 'Report', why: "default: restarting a failed unit is systemd's Restart=" };
  if (d.origin === 'rendered') return { action: 'Repair', why: 'default: rendered by gardenlet' };
  if (d.origin === 'extension') return { action: 'Report', why: "default: the OS extension's" };
  return { action: 'Report', why: 'default: not written by the node agent' };
}

export function decideDrift(d: Drift, rules: readonly DriftRule[] = []): DriftDecision {
  const rule = rules.find((r) => matches(r, d));
  if (rule)
    return {
      drift: d,
      action: rule.action,
      why: rule.reason ?? `policy for ${rule.path ?? rule.unit ?? 'all'}`,
    };
  return { drift: d, ...defaultDecision(d) };
}

export function decideDrifts(drifts: readonly Drift[], rules: readonly DriftRule[] = []): DriftDecision[] {
  return drifts.map((d) => decideDrift(d, rules));
}
