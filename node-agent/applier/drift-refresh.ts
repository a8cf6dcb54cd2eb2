/**
 * Refreshing from the node before planning, like `terraform plan`: the drift of the node from the
 * last applied OSC, each decided by the drift policy (planner/drift-policy.ts); drifts to adopt are
 * recorded as adopted (drift-adopted.ts); the repairs become the base the next OSC is planned
 * against (planner/drift-repair.ts). Used by `apply`, `plan --root` and the running agent.
 */
import type { OperatingSystemConfig } from '../../api/index.js';
import type { Drift } from '../planner/drift.js';
import { type DriftDecision, type DriftRule, decideDrifts } from '../planner/drift-policy.js';
import { observedOsc } from '../planner/drift-repair.js';
import type { Systemd } from '../systemd/systemd.js';
import { adopt } from './drift-adopted.js';
import { type DetectOptions, detectDrift } from './drift-detect.js';
import type { HostRoot } from './host-root.js';

export interface NodeRefresh {
  readonly decisions: readonly DriftDecision[];
  /** The drifts the policy repairs. */
  readonly repairs: readonly Drift[];
  /** The last applied OSC as the node has it: the base of the next plan. */
  readonly observed: OperatingSystemConfig;
}

export interface RefreshOptions {
  readonly host: HostRoot;
  readonly previous: OperatingSystemConfig;
  readonly systemd?: Pick<Systemd, 'unitStatus' | 'unitFileState'>;
  readonly rules?: readonly DriftRule[];
  readonly owner?: DetectOptions['owner'];
  /** Record the drifts to adopt (apply, the agent); `plan` only shows them. */
  readonly recordAdoptions: boolean;
  /** Repairs are planned only when permitted (the agent, during a rollout: report only). */
  readonly repair?: boolean;
}

export async function refreshFromNode(options: RefreshOptions): Promise<NodeRefresh> {
  const drifts = await detectDrift({
    host: options.host,
    osc: options.previous,
    ...(options.systemd ? { systemd: options.systemd } : {}),
    ...(options.owner ? { owner: options.owner } : {}),
  });
  const decisions = decideDrifts(drifts, options.rules);
  if (options.recordAdoptions)
    await adopt(
      options.host,
      decisions.filter((d) => d.action === 'Adopt').map((d) => d.drift),
    );
  const repairs =
    options.repair === false ? [] : decisions.filter((d) => d.action === 'Repair').map((d) => d.drift);
  return { decisions, repairs, observed: observedOsc(options.previous, repairs) };
}
