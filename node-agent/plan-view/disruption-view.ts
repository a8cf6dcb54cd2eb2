/**
 * The least-disruption decision in the plan view: per unit its action and causes (file causes with
 * the summary of the file change), per pool the sum, and the text both outputs print, e.g.
 * `kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (maxPods 110 → 120)`.
 */

import type { DisruptionCause, UnitDisruption } from '../planner/decide-disruption.js';
import { rankOf } from '../planner/disruption-action.js';
import { notReadyEstimate, notReadyText } from './not-ready-costs.js';
import type {
  DisruptionCauseView,
  DisruptionSumView,
  FileView,
  UnitDisruptionView,
  UnitView,
} from './view.js';

export function unitDisruptionView(
  decision: UnitDisruption,
  files: ReadonlyMap<string, FileView>,
): UnitDisruptionView {
  return {
    action: decision.action,
    causes: decision.causes.map((c): DisruptionCauseView => {
      const file = c.path ? files.get(c.path) : undefined;
      return file ? { ...c, summary: file.summary } : c;
    }),
  };
}

/** A unit a rule names without the plan writing it (systemd-journald.service for journald.conf). */
export function ruleOnlyUnitView(decision: UnitDisruption, files: ReadonlyMap<string, FileView>): UnitView {
  const paths = [...new Set(decision.causes.flatMap((c) => (c.path ? [c.path] : [])))];
  return {
    name: decision.unit,
    action: 'restart',
    reasons: paths.map((path) => {
      const file = files.get(path);
      const change = file?.change === 'added' ? 'added' : 'changed';
      return { kind: 'file', path, change, ...(file ? { summary: file.summary } : {}) };
    }),
    disruption: unitDisruptionView(decision, files),
  };
}

export function causeText(cause: DisruptionCause & { readonly summary?: string }): string {
  if (cause.path) return cause.summary ? `${cause.path} (${cause.summary})` : cause.path;
  if (cause.rule === 'semantic-diff' && cause.source === 'unit file and drop-ins')
    return cause.why === 'no effective change' ? 'no effective change' : `unit file (${cause.why})`;
  if (cause.rule === 'semantic-diff') return `${cause.source} (${cause.why})`;
  return cause.source;
}

/** `kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (maxPods 110 → 120)` */
export function disruptionLine(name: string, d: UnitDisruptionView): string {
  const causes = d.causes.filter((c) => c.action === d.action);
  return `${name}: ${d.action} ← ${(causes.length > 0 ? causes : d.causes).map(causeText).join(', ')}`;
}

export function disruptionSum(decisions: readonly UnitDisruption[]): DisruptionSumView {
  const count = (test: (d: UnitDisruption) => boolean) => decisions.filter(test).length;
  const avoided = (d: UnitDisruption) => d.baseline === 'Restart' && rankOf(d.action) < rankOf('Restart');
  const notReady = notReadyEstimate(decisions);
  return {
    restarts: count((d) => d.action === 'Restart'),
    reloads: count((d) => d.action === 'Reload'),
    drains: count((d) => d.action === 'DrainAndRestart'),
    reboots: count((d) => d.action === 'Reboot'),
    unaffected: count((d) => rankOf(d.action) < rankOf('Reload')),
    restartsAvoided: count(avoided),
    restartsReplacedByReload: count((d) => avoided(d) && d.action === 'Reload'),
    kubeletRestarts: notReady.kubeletRestarts,
    notReadySecondsPerNode: notReady.notReadySecondsPerNode,
  };
}

export function disruptionSumText(sum: DisruptionSumView): string {
  const parts = [`${sum.restarts} restarts`, `${sum.reloads} reloads`, `${sum.drains} drains`];
  if (sum.reboots > 0) parts.push(`${sum.reboots} reboots`);
  parts.push(`${sum.restartsAvoided} restarts avoided`);
  return `${parts.join(', ')}; ${notReadyText(sum)}`;
}
