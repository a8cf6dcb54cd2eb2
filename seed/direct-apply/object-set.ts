/**
 * The pure half of `applyMode: direct` (issue #6): which kinds a set may hold, how membership of a
 * set is marked on an object in the shoot, and what pruning does with an object a set no longer
 * renders. No I/O here, so every decision is unit-testable.
 *
 * Membership: one label per set, `set.node-configuration.gardener.cloud/<set>: "true"`, where
 * `<set>` is the ManagedResource name GRM would have used (`shoot-gardener-node-agent`,
 * `shoot-cloud-config-execution`). One label per set (rather than one origin annotation, as GRM
 * writes) lets an object belong to several sets at once (the bootstrap ClusterRoleBindings are in
 * both) and lets the pruner find a set's objects with a label selector.
 *
 * Field ownership: each set applies with its own field manager, `gardener-osc/<set>`, so a set's
 * intent is exactly its managed-fields entry: applying an empty intent (only apiVersion, kind,
 * name, namespace) for that manager removes its membership label and every field only it set,
 * while fields another set applied with the same value stay (shared ownership).
 */
import * as z from 'zod';
import { ANNOTATION, RESOURCES_MODE_IGNORE } from '../../api/index.js';

export const SET_LABEL_PREFIX = 'set.node-configuration.gardener.cloud/';
export const SET_LABEL_VALUE = 'true';
export const DEFAULT_FIELD_MANAGER = 'gardener-osc';

/** The kinds a set may contain, so the pruner knows what to list; anything else is rejected up front. */
export const SET_KINDS = [
  { apiVersion: 'v1', kind: 'Secret', namespaced: true },
  { apiVersion: 'v1', kind: 'ServiceAccount', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', namespaced: true },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', namespaced: false },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', namespaced: false },
  { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', namespaced: false },
  {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    namespaced: false,
  },
] as const;

export type SetKind = (typeof SET_KINDS)[number];

/** A label name part: at most 63 characters, alphanumeric at both ends, `-_.` inside. */
const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

export class ObjectSetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ObjectSetError';
  }
}

export function setLabelKey(set: string): string {
  if (!LABEL_NAME.test(set))
    throw new ObjectSetError(
      `set name "${set}" must be a valid label name (at most 63 characters of [A-Za-z0-9-_.], alphanumeric at both ends)`,
    );
  return `${SET_LABEL_PREFIX}${set}`;
}

/** The field manager of one set (the API server allows at most 128 characters). */
export function setFieldManager(set: string, prefix = DEFAULT_FIELD_MANAGER): string {
  setLabelKey(set);
  return `${prefix}/${set}`;
}

/** What a set is made of: any rendered object of one of the SET_KINDS. */
export interface SetObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

/** The metadata of a live object the pruner looks at; decoded tolerantly. */
export const LiveMetadata = z.object({
  name: z.string(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});
export type LiveMetadata = z.output<typeof LiveMetadata>;

/** `Kind/name` or `Kind/namespace/name`: identity within a set (apiVersion follows from the kind). */
export function objectRef(kind: string, name: string, namespace?: string): string {
  return namespace ? `${kind}/${namespace}/${name}` : `${kind}/${name}`;
}

export function refOf(o: SetObject): string {
  return objectRef(o.kind, o.metadata.name ?? '', o.metadata.namespace);
}

export function kindOf(o: SetObject): SetKind | undefined {
  return SET_KINDS.find((k) => k.kind === o.kind && k.apiVersion === o.apiVersion);
}

/** Rejects a whole set before anything is written: unknown kinds, missing names, wrong scopes, duplicates. */
export function validateObjectSet(set: string, objects: readonly SetObject[]): void {
  setLabelKey(set);
  const seen = new Set<string>();
  objects.forEach((o, i) => {
    const where = `set ${set}: objects[${i}] (${o.kind} ${o.metadata?.name ?? '<no name>'})`;
    const kind = kindOf(o);
    if (!kind)
      throw new ObjectSetError(
        `${where}: ${o.apiVersion} ${o.kind} is not a kind a set may hold (${SET_KINDS.map((k) => k.kind).join(', ')})`,
      );
    if (!o.metadata?.name) throw new ObjectSetError(`${where}: metadata.name is required`);
    if (kind.namespaced && !o.metadata.namespace)
      throw new ObjectSetError(`${where}: metadata.namespace is required for a namespaced kind`);
    if (!kind.namespaced && o.metadata.namespace)
      throw new ObjectSetError(`${where}: a ${o.kind} is cluster-scoped and has no namespace`);
    const ref = refOf(o);
    if (seen.has(ref)) throw new ObjectSetError(`${where}: ${ref} appears twice`);
    seen.add(ref);
  });
}

/** GRM's `resources.gardener.cloud/mode: Ignore`: the object is no (longer a) managed part of the set. */
export function isIgnored(annotations: Readonly<Record<string, string>> | undefined): boolean {
  return annotations?.[ANNOTATION.resourcesMode] === RESOURCES_MODE_IGNORE;
}

/** The sets (other than `set`) whose membership label the live object carries. */
export function otherSets(set: string, labels: Readonly<Record<string, string>> | undefined): string[] {
  return Object.entries(labels ?? {})
    .filter(([k, v]) => k.startsWith(SET_LABEL_PREFIX) && v === SET_LABEL_VALUE)
    .map(([k]) => k.slice(SET_LABEL_PREFIX.length))
    .filter((s) => s !== set)
    .sort();
}

export interface PruneInput {
  readonly set: string;
  /** The live object's labels and annotations. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** The set renders it (without mode Ignore): it is applied, never pruned. */
  readonly desired: boolean;
  /** The set renders it with `resources.gardener.cloud/mode: Ignore`. */
  readonly ignoredInSet: boolean;
  /** Another rendered set holds it (passed by the caller; it may not be applied yet). */
  readonly heldElsewhere: boolean;
}

/**
 * - `keep`: still in the set.
 * - `release` `unapply`: another set's label is on it: apply an empty intent for this set's field
 *   manager, which drops this set's label and the fields only this set owned; the other set's
 *   fields stay.
 * - `release` `unlabel`: leave the object exactly as it is (GRM's Ignore: "no action is performed on
 *   the cluster") and only remove this set's label, so the set's deletion never touches it.
 * - `delete`: nothing else wants it.
 */
export type PruneDecision =
  | { readonly action: 'keep' }
  | { readonly action: 'release'; readonly how: 'unapply' | 'unlabel'; readonly reason: string }
  | { readonly action: 'delete' };

export function pruneDecision(input: PruneInput): PruneDecision {
  if (input.desired) return { action: 'keep' };
  const others = otherSets(input.set, input.labels);
  if (others.length > 0)
    return { action: 'release', how: 'unapply', reason: `still in set(s) ${others.join(', ')}` };
  if (input.ignoredInSet)
    return {
      action: 'release',
      how: 'unlabel',
      reason: `the set renders it with ${ANNOTATION.resourcesMode}: Ignore`,
    };
  if (isIgnored(input.annotations))
    return { action: 'release', how: 'unlabel', reason: `it carries ${ANNOTATION.resourcesMode}: Ignore` };
  if (input.heldElsewhere)
    return { action: 'release', how: 'unlabel', reason: 'another rendered set holds it' };
  return { action: 'delete' };
}

/** The apply body: the rendered object plus the membership label, without server-owned metadata. */
export function applyBody(set: string, o: SetObject): Record<string, unknown> {
  const { creationTimestamp, resourceVersion, uid, managedFields, generation, ...metadata } =
    o.metadata as Record<string, unknown>;
  void [creationTimestamp, resourceVersion, uid, managedFields, generation];
  const { status, ...rest } = o as unknown as Record<string, unknown>;
  void status;
  return {
    ...rest,
    metadata: {
      ...metadata,
      labels: { ...(o.metadata.labels ?? {}), [setLabelKey(set)]: SET_LABEL_VALUE },
    },
  };
}

/** The empty intent that releases everything a set's field manager owns on an object. */
export function emptyIntent(kind: SetKind, name: string, namespace?: string): Record<string, unknown> {
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: namespace ? { name, namespace } : { name },
  };
}
