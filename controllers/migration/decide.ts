/**
 * The migration's decisions (pure). The migration controller alone moves a shoot's phase
 * (seed/migration-state): it records the first phase (a shoot seen with the gate on has legacy
 * nodes only if a legacy ManagedResource exists), moves Legacy to Migrating when the gate goes on
 * and back when it goes off, and, once every node reports the agent, records CleaningUp before the
 * first delete, removes the legacy resources and records Completed.
 */
import type { MigrationPhase, MigrationState } from '../../seed/migration-state/state.js';
import type { MigrationProgress } from './progress.js';

/** The phase to record before anything else, or undefined when the recorded one stands. */
export function phaseToRecord(
  useGardenerNodeAgent: boolean,
  state: MigrationState | undefined,
  legacyResourcesExist: boolean,
): MigrationPhase | undefined {
  if (!useGardenerNodeAgent) return state?.phase === 'Legacy' ? undefined : 'Legacy';
  if (!state) return legacyResourcesExist ? 'Migrating' : 'Completed';
  if (state.phase === 'Legacy') return 'Migrating';
  return undefined;
}

/** The phase the shoot is in once `phaseToRecord` is recorded. */
export function currentPhase(
  useGardenerNodeAgent: boolean,
  state: MigrationState | undefined,
  legacyResourcesExist: boolean,
): MigrationPhase | undefined {
  return phaseToRecord(useGardenerNodeAgent, state, legacyResourcesExist) ?? state?.phase;
}

export interface MigrationObservation {
  readonly useGardenerNodeAgent: boolean;
  readonly state: MigrationState | undefined;
  /** Whether the legacy ManagedResource exists; read only when no state is recorded yet. */
  readonly legacyResourcesExist: boolean;
  /** The nodes' progress, read while the phase is Migrating and the shoot runs. */
  readonly progress: MigrationProgress | undefined;
  /** RFC 3339, for the `since` of a recorded phase. */
  readonly now: string;
}

export type MigrationStep =
  | { readonly kind: 'record'; readonly state: MigrationState }
  | { readonly kind: 'report'; readonly progress: MigrationProgress }
  | { readonly kind: 'clean-up' }
  | { readonly kind: 'completed' };

export interface MigrationPlan {
  /** Executed in order; a failing step stops the rest (the reconcile is retried). */
  readonly steps: readonly MigrationStep[];
  /** Look again later: the nodes are still migrating, or their shoot is not running yet. */
  readonly checkAgain: boolean;
}

export const NO_LEGACY_NODES =
  'no legacy nodes: the shoot never ran cloud-config-downloader under this controller-manager';

export function decideMigration(o: MigrationObservation): MigrationPlan {
  const steps: MigrationStep[] = [];
  const record = (phase: MigrationPhase, reason?: string) =>
    steps.push({ kind: 'record', state: { phase, since: o.now, ...(reason ? { reason } : {}) } });
  const first = phaseToRecord(o.useGardenerNodeAgent, o.state, o.legacyResourcesExist);
  if (first) record(first, first === 'Completed' ? NO_LEGACY_NODES : undefined);
  let phase = first ?? o.state?.phase;
  if (phase === 'Migrating') {
    if (!o.progress) return { steps, checkAgain: true };
    steps.push({ kind: 'report', progress: o.progress });
    if (!o.progress.done) return { steps, checkAgain: true };
    record('CleaningUp');
    phase = 'CleaningUp';
  }
  if (phase === 'CleaningUp') {
    steps.push({ kind: 'clean-up' });
    record('Completed');
    steps.push({ kind: 'completed' });
  }
  return { steps, checkAgain: false };
}
