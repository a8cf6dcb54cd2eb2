/**
 * Where the `UseGardenerNodeAgent` migration of one shoot stands, persisted in a seed ConfigMap in
 * the shoot namespace so that a restarted controller-manager never redoes (or undoes) the legacy
 * cleanup. The phases only move forward while the gate is on:
 *
 *   Legacy ──gate on──► Migrating ──every node reported──► CleaningUp ──deleted──► Completed
 *
 * A shoot that never had legacy nodes starts at Completed. CleaningUp is written before the first
 * delete, so the legacy resources are never rendered again once their deletion began. Only the
 * migration controller moves the phase; the operatingsystemconfig controller reads it to know
 * whether legacy nodes may remain.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';

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

export function decodeMigrationState(cm: V1ConfigMap | undefined): MigrationState | undefined {
  const phase = cm?.data?.phase as MigrationPhase | undefined;
  if (!phase || !PHASES.includes(phase)) return undefined;
  return { phase, since: cm?.data?.since ?? '', reason: cm?.data?.reason };
}

export async function readMigrationState(
  seed: Pick<KubeClient, 'getIfExists'>,
  namespace: string,
): Promise<MigrationState | undefined> {
  return decodeMigrationState(
    await seed.getIfExists<V1ConfigMap>(RESOURCE.configMap, { name: MIGRATION_STATE_NAME, namespace }),
  );
}

export async function writeMigrationState(
  seed: Pick<KubeClient, 'create' | 'update'>,
  namespace: string,
  state: MigrationState,
): Promise<void> {
  const body: V1ConfigMap = {
    metadata: { name: MIGRATION_STATE_NAME, namespace, labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE } },
    data: { phase: state.phase, since: state.since, ...(state.reason ? { reason: state.reason } : {}) },
  };
  try {
    await seed.create(RESOURCE.configMap, body);
  } catch (e) {
    if (!isApiStatus(e, 409)) throw e;
    await seed.update(RESOURCE.configMap, body);
  }
}

export async function deleteMigrationState(
  seed: Pick<KubeClient, 'delete'>,
  namespace: string,
): Promise<void> {
  await seed.delete(RESOURCE.configMap, { name: MIGRATION_STATE_NAME, namespace });
}
