/**
 * Where the `UseGardenerNodeAgent` migration of one shoot stands, persisted in a seed ConfigMap in
 * the shoot namespace so that a restarted controller-manager never redoes (or undoes) the legacy
 * cleanup. The phases only move forward while the gate is on:
 *
 *   Legacy ──gate on──► Migrating ──every node reported──► CleaningUp ──deleted──► Completed
 *
 * A shoot that never had legacy nodes starts at Completed. CleaningUp is written before the first
 * delete, so the legacy resources are never rendered again once their deletion began.
 */
import type { CoreV1Api, V1ConfigMap } from '@kubernetes/client-node';
import { isApiStatus } from '../../runtime/kube/api-status.js';

export const MIGRATION_STATE_NAME = 'gardener-node-agent-migration';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'gardener-osc';

export type MigrationPhase = 'Legacy' | 'Migrating' | 'CleaningUp' | 'Completed';
const PHASES: readonly MigrationPhase[] = ['Legacy', 'Migrating', 'CleaningUp', 'Completed'];

export interface MigrationState {
  readonly phase: MigrationPhase;
  /** RFC 3339 time the phase was entered. */
  readonly since: string;
  readonly reason?: string;
}

/** Legacy nodes may exist, so the legacy downloader resources must still be rendered. */
export function legacyNodesRemain(useGardenerNodeAgent: boolean, state: MigrationState | undefined): boolean {
  if (!useGardenerNodeAgent) return true;
  return state?.phase === 'Legacy' || state?.phase === 'Migrating';
}

/**
 * The phase the OperatingSystemConfig controller moves to before rendering. A shoot seen for the
 * first time with the gate on has legacy nodes only if a legacy ManagedResource already exists
 * (it was run by something else before us).
 */
export function nextPhaseOnReconcile(
  useGardenerNodeAgent: boolean,
  state: MigrationState | undefined,
  legacyResourcesExist: boolean,
): MigrationPhase | undefined {
  if (!useGardenerNodeAgent) return state?.phase === 'Legacy' ? undefined : 'Legacy';
  if (!state) return legacyResourcesExist ? 'Migrating' : 'Completed';
  if (state.phase === 'Legacy') return 'Migrating';
  return undefined;
}

export function decodeMigrationState(cm: V1ConfigMap | undefined): MigrationState | undefined {
  const phase = cm?.data?.phase as MigrationPhase | undefined;
  if (!phase || !PHASES.includes(phase)) return undefined;
  return { phase, since: cm?.data?.since ?? '', reason: cm?.data?.reason };
}

export async function readMigrationState(
  core: CoreV1Api,
  namespace: string,
): Promise<MigrationState | undefined> {
  try {
    return decodeMigrationState(
      await core.readNamespacedConfigMap({ name: MIGRATION_STATE_NAME, namespace }),
    );
  } catch (e) {
    if (isApiStatus(e, 404)) return undefined;
    throw e;
  }
}

export async function writeMigrationState(
  core: CoreV1Api,
  namespace: string,
  state: MigrationState,
): Promise<void> {
  const body: V1ConfigMap = {
    metadata: { name: MIGRATION_STATE_NAME, namespace, labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } },
    data: { phase: state.phase, since: state.since, ...(state.reason ? { reason: state.reason } : {}) },
  };
  try {
    await core.createNamespacedConfigMap({ namespace, body });
  } catch (e) {
    if (!isApiStatus(e, 409)) throw e;
    await core.replaceNamespacedConfigMap({ name: MIGRATION_STATE_NAME, namespace, body });
  }
}

export async function deleteMigrationState(core: CoreV1Api, namespace: string): Promise<void> {
  try {
    await core.deleteNamespacedConfigMap({ name: MIGRATION_STATE_NAME, namespace });
  } catch (e) {
    if (!isApiStatus(e, 404)) throw e;
  }
}
