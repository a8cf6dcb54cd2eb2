/**
 * The readable plan of one worker pool (or one node): the node agent's own Plan from the previous
 * to the next `osc.yaml`, with the reason for every unit action and every file change decoded.
 */
import { LABEL, type OperatingSystemConfig, PATH, sha256Hex } from '../../api/index.js';
import { computePlan } from '../planner/compute-plan.js';
import type { DisruptionPolicy } from '../planner/disruption-policy.js';
import { explainPlan, type UnitReason } from '../planner/explain.js';
import { computeLeastDisruptionPlan } from '../planner/least-disruption-plan.js';
import { type MergedUnit, mergedUnitsOf } from '../planner/merge-units.js';
import { isEmptyPlan, type Plan } from '../planner/plan.js';
import { disruptionSum, ruleOnlyUnitView, unitDisruptionView } from './disruption-view.js';
import { defined, fileViews } from './file-views.js';
import { redactionReason } from './redaction.js';
import { summaryLine } from './summary.js';
import { unifiedDiff } from './unified-diff.js';
import type { FileView, PoolView, ReasonView, UnitView } from './view.js';

/** An `osc.yaml` as read: its exact text (for the checksum) and the decoded object. */
export interface OscDocument {
  readonly text: string;
  readonly osc: OperatingSystemConfig;
  /** The OSC secret it came from, when known. */
  readonly secretName?: string;
}

interface UnitTexts {
  readonly before?: MergedUnit;
  readonly after?: MergedUnit;
}

/** The diff of a unit file or drop-in a reason names; redacted as files are (`Environment=TOKEN=…`). */
function unitDiff(reason: UnitReason, unit: string, texts: UnitTexts): { summary?: string; diff?: string } {
  let path: string;
  let content: (u?: MergedUnit) => string | undefined;
  if (reason.kind === 'unit-file') {
    path = `${PATH.systemdUnitDir}/${unit}`;
    content = (u) => u?.content;
  } else if (reason.kind === 'drop-in') {
    path = `${PATH.systemdUnitDir}/${unit}.d/${reason.name}`;
    content = (u) => u?.dropIns.find((d) => d.name === reason.name)?.content;
  } else return {};
  const before = content(texts.before);
  const after = content(texts.after);
  const redacted = redactionReason(path, [before, after]);
  if (redacted) return { summary: `content redacted: ${redacted}` };
  const diff = unifiedDiff(path, before, after);
  return diff ? { diff } : {};
}

function withDetails(
  unit: string,
  reasons: readonly UnitReason[],
  files: ReadonlyMap<string, FileView>,
  texts: UnitTexts,
): ReasonView[] {
  return reasons.map((r) => {
    const file = r.kind === 'file' ? files.get(r.path) : undefined;
    if (file) return { ...r, summary: file.summary };
    return { ...r, ...unitDiff(r, unit, texts) };
  });
}

/** The name a plan of a single OSC goes by: its pool, else the OSC's name. */
export function oscDisplayName(osc: OperatingSystemConfig): string {
  return osc.metadata.labels?.[LABEL.workerPool] ?? osc.metadata.name ?? 'node';
}

/**
 * With a disruption policy the plan is the one the agent runs with it (`--disruption-policy`):
 * each unit says its least-disruption action and why, and the pool sums them. `refine` adds what
 * the plan of a node with drift also does (planner/drift-repair.ts `withDriftRepairs`).
 */
export function poolView(
  name: string,
  previous: OscDocument | undefined,
  next: OscDocument,
  policy?: DisruptionPolicy,
  refine: (plan: Plan) => Plan = (plan) => plan,
): PoolView {
  const plan = refine(
    policy
      ? computeLeastDisruptionPlan(previous?.osc, next.osc, { policy })
      : computePlan(previous?.osc, next.osc),
  );
  const files = fileViews(previous?.osc, plan);
  const byPath = new Map(files.map((f) => [f.path, f]));
  const before = new Map((previous ? mergedUnitsOf(previous.osc) : []).map((u) => [u.name, u]));
  const after = new Map(mergedUnitsOf(next.osc).map((u) => [u.name, u]));
  const decisions = new Map((plan.disruption ?? []).map((d) => [d.unit, d]));
  const units: UnitView[] = explainPlan(previous?.osc, next.osc, plan).map((u) => {
    const decision = decisions.get(u.name);
    return {
      name: u.name,
      action: u.action,
      reasons: withDetails(u.name, u.reasons, byPath, {
        before: before.get(u.name),
        after: after.get(u.name),
      }),
      ...(decision ? { disruption: unitDisruptionView(decision, byPath) } : {}),
    };
  });
  const explained = new Set(units.map((u) => u.name));
  for (const decision of decisions.values())
    if (!explained.has(decision.unit)) units.push(ruleOnlyUnitView(decision, byPath));
  const from = previous && sha256Hex(previous.text);
  const to = sha256Hex(next.text);
  const changed = from !== to;
  const empty = isEmptyPlan(plan);
  let summary = summaryLine(units, files);
  // the same OSC plans something only against a node with drift (plan --root)
  if (!changed) summary = empty ? 'unchanged' : `same OSC, drift repaired: ${summary}`;
  else if (empty) summary = 'new checksum, nothing to do on the nodes';
  return {
    name,
    change: !previous ? 'added' : changed ? 'changed' : 'unchanged',
    changed,
    checksum: { ...(from ? { from } : {}), to },
    ...(previous?.secretName || next.secretName
      ? { secret: defined({ from: previous?.secretName, to: next.secretName }) }
      : {}),
    summary,
    nodeAgentRestart: plan.mustRestartNodeAgent,
    daemonReload: plan.daemonReload,
    units,
    files,
    ...(plan.disruption ? { disruption: disruptionSum(plan.disruption) } : {}),
  };
}

/** A pool that is gone: its OSC secret is deleted with it, and so are its machines. */
export function removedPoolView(name: string, previous: OscDocument): PoolView {
  return {
    name,
    change: 'removed',
    changed: true,
    checksum: { from: sha256Hex(previous.text) },
    ...(previous.secretName ? { secret: { from: previous.secretName } } : {}),
    summary: 'pool removed: its OSC secret goes, its machines are deleted (nothing is applied)',
    nodeAgentRestart: false,
    daemonReload: false,
    units: [],
    files: [],
  };
}
