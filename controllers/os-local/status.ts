/**
 * The writes of the os-local controller as pure functions: the status it records (Gardener's
 * `StatusUpdater`: `lastOperation`, `lastError`, `observedGeneration`, plus the OS-extension
 * fields of `cloudConfigStatus`) and the result secret (upstream `reconcileOSCResultSecret`:
 * `osc-result-<name>`, data key `cloud_config`, controlled by the OSC).
 */
import type { V1OwnerReference, V1Secret } from '@kubernetes/client-node';
import { DATA_KEY, formatRfc3339, OSC_API_VERSION, OSC_KIND } from '../../api/index.js';
import type { CloudConfigStatus } from '../../components/os-local/status.js';
import { type OperationType, type OscObject, SUCCEEDED } from './decide.js';

export const ERROR = 'Error';

/** The status fields `cloudConfigStatus` owns; a field it leaves out is removed (merge patch null). */
const OWNED_FIELDS = [
  'cloudConfig',
  'command',
  'units',
  'files',
  'extensionUnits',
  'extensionFiles',
] as const;

const VERB: Record<OperationType, readonly [done: string, doing: string]> = {
  Create: ['reconciled', 'reconciling'],
  Reconcile: ['reconciled', 'reconciling'],
  Restore: ['restored', 'restoring'],
  Migrate: ['migrated', 'migrating'],
  Delete: ['deleted', 'deleting'],
};

/** Upstream's descriptions: "Successfully reconciled OperatingSystemConfig" etc. */
export function successDescription(operation: OperationType): string {
  return `Successfully ${VERB[operation][0]} OperatingSystemConfig`;
}

export function errorDescription(operation: OperationType, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `Error ${VERB[operation][1]} OperatingSystemConfig: ${message}`;
}

/** A JSON merge patch of `status` (null removes a field). */
export type StatusPatch = { status: Record<string, unknown> };

/** The status after a successful operation; `cloudConfig` is given for Create/Reconcile/Restore. */
export function successStatus(
  osc: OscObject,
  operation: OperationType,
  now: Date,
  cloudConfig?: CloudConfigStatus,
): StatusPatch {
  const status: Record<string, unknown> = {};
  if (cloudConfig) {
    for (const field of OWNED_FIELDS) status[field] = cloudConfig[field] ?? null;
  }
  status.lastOperation = {
    type: operation,
    state: SUCCEEDED,
    progress: 100,
    lastUpdateTime: formatRfc3339(now),
    description: successDescription(operation),
  };
  status.lastError = null;
  status.observedGeneration = osc.metadata?.generation ?? 0;
  return { status };
}

/** Upstream `ReconcileError`: progress 50, the same description in lastOperation and lastError. */
export function errorStatus(
  osc: OscObject,
  operation: OperationType,
  now: Date,
  error: unknown,
): StatusPatch {
  const description = errorDescription(operation, error);
  const lastUpdateTime = formatRfc3339(now);
  return {
    status: {
      lastOperation: { type: operation, state: ERROR, progress: 50, lastUpdateTime, description },
      lastError: { description, lastUpdateTime },
      observedGeneration: osc.metadata?.generation ?? 0,
    },
  };
}

/** The owner reference that makes the OSC the controller of its result secret. */
export function controllerReference(osc: OscObject): V1OwnerReference {
  return {
    apiVersion: OSC_API_VERSION,
    kind: OSC_KIND,
    name: osc.metadata?.name ?? '',
    uid: osc.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * controller-runtime's `SetControllerReference`: a reference to the same object (group, kind,
 * name) is replaced, other references stay; a different controller is an error.
 */
export function withControllerReference(
  existing: readonly V1OwnerReference[] | undefined,
  owner: V1OwnerReference,
): V1OwnerReference[] {
  const group = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');
  const same = (r: V1OwnerReference) =>
    group(r.apiVersion) === group(owner.apiVersion) && r.kind === owner.kind && r.name === owner.name;
  const other = (existing ?? []).find((r) => r.controller === true && !same(r));
  if (other) {
    throw new Error(
      `the result secret is already controlled by ${other.kind} ${JSON.stringify(other.name)}, not by this OperatingSystemConfig`,
    );
  }
  const kept = (existing ?? []).filter((r) => !same(r));
  return [...kept, owner];
}

/** The result secret: `data.cloud_config` = the user data, controlled by the OSC (same namespace only). */
export function resultSecret(
  osc: OscObject,
  ref: { name: string; namespace: string },
  userData: string,
): V1Secret {
  const sameNamespace = ref.namespace === osc.metadata?.namespace;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      ...(sameNamespace ? { ownerReferences: [controllerReference(osc)] } : {}),
    },
    type: 'Opaque',
    data: { [DATA_KEY.cloudConfig]: Buffer.from(userData, 'utf8').toString('base64') },
  };
}

/**
 * The merge patch that turns an existing secret into the wanted one, or undefined when it already
 * is (so an unchanged OSC costs no write).
 */
export function secretPatch(existing: V1Secret, wanted: V1Secret): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  const key = DATA_KEY.cloudConfig;
  if (existing.data?.[key] !== wanted.data?.[key]) patch.data = { [key]: wanted.data?.[key] };
  const owner = wanted.metadata?.ownerReferences?.[0];
  if (owner) {
    const refs = withControllerReference(existing.metadata?.ownerReferences, owner);
    const has = existing.metadata?.ownerReferences?.some(
      (r) => r.uid === owner.uid && r.controller === true && r.kind === owner.kind && r.name === owner.name,
    );
    if (!has) patch.metadata = { ownerReferences: refs };
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}
