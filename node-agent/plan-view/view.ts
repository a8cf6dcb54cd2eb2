/**
 * The readable plan, as data: what `gardener-node-agent plan` shows for one node and
 * `gardener-osc plan` for every worker pool of a shoot, in the same shape (docs/plan.md documents
 * it as the JSON/YAML output). Built from the node agent's own Plan, so what is shown is what the
 * agent does.
 */

import type { DisruptionCause } from '../planner/decide-disruption.js';
import type { DisruptionAction } from '../planner/disruption-action.js';
import type { ChangeKind, UnitAction, UnitReason } from '../planner/explain.js';

export type PoolChange = 'unchanged' | 'changed' | 'added' | 'removed';

/**
 * A reason, with the summary of the file change it names (`maxPods 110 → 120`), and for a changed
 * unit file or drop-in the unified diff of it (under `/etc/systemd/system/`).
 */
export type ReasonView = UnitReason & { readonly summary?: string; readonly diff?: string };

/** A cause of the least-disruption decision, with the summary of the file change it names. */
export type DisruptionCauseView = DisruptionCause & { readonly summary?: string };

/**
 * With a disruption policy (docs/least-disruption.md): what the agent does with the unit, the
 * gentlest action each change needs, and why. `action` of the unit is then what it would do
 * without a policy.
 */
export interface UnitDisruptionView {
  readonly action: DisruptionAction;
  readonly causes: readonly DisruptionCauseView[];
}

export interface UnitView {
  readonly name: string;
  readonly action: UnitAction;
  readonly reasons: readonly ReasonView[];
  readonly disruption?: UnitDisruptionView;
}

/** A pool's disruption with a policy, summed over its units, and what it avoids against none. */
export interface DisruptionSumView {
  readonly restarts: number;
  readonly reloads: number;
  readonly drains: number;
  readonly reboots: number;
  /** Changed units that need only a daemon-reload or nothing. */
  readonly unaffected: number;
  /** Restarts the agent would have done without the policy and does not. */
  readonly restartsAvoided: number;
  /** Of those, the ones a reload replaces. */
  readonly restartsReplacedByReload: number;
  /** `Restart` or `DrainAndRestart` of kubelet.service (0 or 1 on a node). */
  readonly kubeletRestarts: number;
  /** What each node of the pool is expected to be NotReady, from measured costs (not-ready-costs.ts). */
  readonly notReadySecondsPerNode: number;
}

export interface FileView {
  readonly path: string;
  readonly change: ChangeKind;
  /** Octal, as `chmod` takes it; `from` absent for an added file, `to` for a removed one. */
  readonly mode: { readonly from?: string; readonly to?: string };
  /** Content sizes in bytes, where the content is inline. */
  readonly bytes?: { readonly from?: number; readonly to?: number };
  /** `image` + path in it, for files copied out of an image. */
  readonly image?: { readonly from?: string; readonly to?: string };
  /** Why the content is not shown (secrets), when it is not. */
  readonly redacted?: string;
  /** The content is not text (invalid UTF-8 or NUL bytes). */
  readonly binary?: boolean;
  /** One line: `maxPods 110 → 120`, `mode 0644 → 0600`, `new file`, … */
  readonly summary: string;
  /** Unified diff of the decoded content; null where it is not shown or there is none. */
  readonly diff: string | null;
}

/**
 * How a changed pool reaches its nodes. Today: each node waits its reconciliation delay. A rollout
 * gate adds its own strategy (waves) with its own fields; `text` is what the text output prints.
 */
export interface RolloutView {
  readonly strategy: string;
  readonly text: string;
  readonly [field: string]: unknown;
}

export interface PoolView {
  readonly name: string;
  readonly change: PoolChange;
  readonly changed: boolean;
  /** `checksum/data-script` of the pool's OSC secret (sha256 of `osc.yaml`). */
  readonly checksum: { readonly from?: string; readonly to?: string };
  /** The OSC secret the pool's nodes read, before and after. */
  readonly secret?: { readonly from?: string; readonly to?: string };
  readonly summary: string;
  /** The agent restarts itself (its unit or binary changed) before running the unit commands. */
  readonly nodeAgentRestart: boolean;
  readonly daemonReload: boolean;
  readonly units: readonly UnitView[];
  readonly files: readonly FileView[];
  readonly rollout?: RolloutView;
  /** With a disruption policy only. */
  readonly disruption?: DisruptionSumView;
}

export interface PlanView {
  readonly pools: readonly PoolView[];
}
