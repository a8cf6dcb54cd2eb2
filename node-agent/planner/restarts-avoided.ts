/**
 * The restarts a least-disruption plan does not do that a plan without policy would: units the
 * plan restarted (baseline Restart) whose decision is gentler, and what made it gentler: a reload,
 * the semantic diff alone (a comment, `[Install]`), or a rule (a default or the policy).
 */

import type { UnitDisruption } from './decide-disruption.js';
import { rankOf } from './disruption-action.js';

export type AvoidedBy = 'reload' | 'semantic-diff' | 'rule';

export interface AvoidedRestart {
  readonly unit: string;
  readonly by: AvoidedBy;
}

export function avoidedRestarts(decisions: readonly UnitDisruption[]): AvoidedRestart[] {
  return decisions
    .filter((d) => d.baseline === 'Restart' && rankOf(d.action) < rankOf('Restart'))
    .map((d) => ({
      unit: d.unit,
      by:
        d.action === 'Reload'
          ? 'reload'
          : d.causes.every((c) => c.rule === 'semantic-diff')
            ? 'semantic-diff'
            : 'rule',
    }));
}

/** One line for the apply report: `kubelet.service None, valitail.service Reload, systemd-journald.service Restart`. */
export function actionsText(decisions: readonly UnitDisruption[]): string {
  return decisions.map((d) => `${d.unit} ${d.action}`).join(', ');
}
