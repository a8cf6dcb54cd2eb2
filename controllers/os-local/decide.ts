/**
 * What the os-local controller does with an OperatingSystemConfig, decided from the object alone
 * (pure): Gardener's extension reconciler rules (`ComputeOperationType`, `ShouldSkipOperation`,
 * the default predicates "has operation annotation, last operation not successful, is deleting")
 * plus the two checks that keep a controller from looping on its own status writes: the observed
 * generation and the presence of our finalizer and of a last operation.
 */
import { ANNOTATION, OPERATION } from '../../api/index.js';

/** The finalizer every Gardener OS extension puts on the OSCs it reconciles (generic reconciler). */
export const FINALIZER = 'extensions.gardener.cloud/operatingsystemconfigs';

/** `gardencorev1beta1.LastOperationType`. */
export type OperationType = 'Create' | 'Reconcile' | 'Delete' | 'Migrate' | 'Restore';
export const SUCCEEDED = 'Succeeded';

/**
 * The fields of an OSC this module reads, typed loosely: it must decide about objects that do not
 * decode (those get an error status), so nothing here assumes a valid spec.
 */
export interface OscObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    deletionTimestamp?: string | null;
    annotations?: Record<string, string>;
    finalizers?: string[];
  };
  spec?: { type?: unknown; [field: string]: unknown };
  status?: {
    observedGeneration?: number;
    lastOperation?: { type?: string; state?: string; [field: string]: unknown };
    [field: string]: unknown;
  };
}

export type Decision =
  | { readonly action: 'none'; readonly reason: string }
  | {
      readonly action: 'reconcile';
      readonly operation: 'Create' | 'Reconcile' | 'Restore';
      readonly reason: string;
    }
  | { readonly action: 'delete'; readonly reason: string }
  | { readonly action: 'migrate'; readonly reason: string };

/** `spec.type` when it is a string, else undefined (such an object belongs to no extension). */
export function oscType(osc: OscObject): string | undefined {
  const type = osc.spec?.type;
  return typeof type === 'string' ? type : undefined;
}

export function hasFinalizer(osc: OscObject): boolean {
  return osc.metadata?.finalizers?.includes(FINALIZER) ?? false;
}

function operationAnnotation(osc: OscObject): string | undefined {
  return osc.metadata?.annotations?.[ANNOTATION.operation];
}

function deleting(osc: OscObject): boolean {
  return typeof osc.metadata?.deletionTimestamp === 'string' && osc.metadata.deletionTimestamp !== '';
}

/** Gardener's `ComputeOperationType`. */
export function computeOperationType(osc: OscObject): OperationType {
  const annotation = operationAnnotation(osc);
  const last = osc.status?.lastOperation;
  if (annotation === OPERATION.migrate) return 'Migrate';
  if (deleting(osc)) return 'Delete';
  if (annotation === OPERATION.restore) return 'Restore';
  if (!last) return 'Create';
  if (last.state !== SUCCEEDED) {
    if (last.type === 'Create' || last.type === 'Migrate' || last.type === 'Restore') return last.type;
  }
  return 'Reconcile';
}

/** The last operation was a successful migration: the object now belongs to another seed. */
export function isMigrated(osc: OscObject): boolean {
  const last = osc.status?.lastOperation;
  return last?.type === 'Migrate' && last.state === SUCCEEDED;
}

export function decide(osc: OscObject): Decision {
  const operation = computeOperationType(osc);
  const annotation = operationAnnotation(osc);
  if (operation === 'Migrate') return { action: 'migrate', reason: 'migration requested' };
  if (operation === 'Delete') {
    return hasFinalizer(osc)
      ? { action: 'delete', reason: 'deletion requested' }
      : { action: 'none', reason: 'being deleted, finalizer already removed' };
  }
  if (operation !== 'Restore' && isMigrated(osc)) return { action: 'none', reason: 'migrated away' };
  if (annotation === OPERATION.waitForState)
    return { action: 'none', reason: 'waiting for gardenlet to restore the state' };
  if (operation === 'Restore') return { action: 'reconcile', operation, reason: 'restore requested' };
  const last = osc.status?.lastOperation;
  const reason =
    annotation === OPERATION.reconcile
      ? 'reconcile requested'
      : !hasFinalizer(osc)
        ? 'finalizer missing'
        : !last
          ? 'status missing'
          : (osc.status?.observedGeneration ?? 0) !== (osc.metadata?.generation ?? 0)
            ? 'generation changed'
            : last.state !== SUCCEEDED
              ? `last operation ${last.type ?? ''} is ${last.state ?? 'without state'}`
              : undefined;
  return reason === undefined
    ? { action: 'none', reason: 'up to date' }
    : { action: 'reconcile', operation: operation as 'Create' | 'Reconcile', reason };
}

/**
 * What, when it changes, may call for work: everything but the status written by the controller
 * itself. A status-only update (our own write, or an error status we just recorded) never
 * enqueues, so the controller does not loop on its writes; errors are retried by the work
 * queue's backoff instead. A last operation that disappears (someone reset the status) does count.
 */
function triggers(osc: OscObject): string {
  const m = osc.metadata ?? {};
  return JSON.stringify([
    m.uid,
    m.generation,
    m.deletionTimestamp ?? null,
    m.annotations?.[ANNOTATION.operation] ?? null,
    m.annotations?.[ANNOTATION.timestamp] ?? null,
    hasFinalizer(osc),
    oscType(osc) ?? null,
  ]);
}

/** Whether an update event of the informer should enqueue the object. */
export function updateNeedsReconcile(previous: OscObject, next: OscObject): boolean {
  const statusReset =
    previous.status?.lastOperation !== undefined && next.status?.lastOperation === undefined;
  return (statusReset || triggers(previous) !== triggers(next)) && decide(next).action !== 'none';
}
