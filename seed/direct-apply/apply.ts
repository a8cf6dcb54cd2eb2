/**
 * `applyMode: direct` (issue #6): what gardener-resource-manager does for a ManagedResource, done
 * straight into the shoot for landscapes without GRM. A set (named like the ManagedResource) is
 * server-side applied with the set's own field manager and membership label, then the set's
 * objects that are no longer rendered are pruned: deleted, or only released when something else
 * still wants them (another set, `resources.gardener.cloud/mode: Ignore`). See object-set.ts for
 * the marking and the decision.
 *
 * Safety rules: a set is validated as a whole before anything is written; nothing is pruned after
 * a failed apply (a half-applied set must not lose its old objects); a delete carries the listed
 * uid and resourceVersion as preconditions, so an object another set labelled meanwhile is never
 * deleted from a stale view.
 */
import * as z from 'zod';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { resourceOf } from '../../runtime/kube/resource.js';
import { type Logger, silentLogger } from '../../runtime/logging.js';
import {
  applyBody,
  DEFAULT_FIELD_MANAGER,
  emptyIntent,
  isIgnored,
  kindOf,
  LiveMetadata,
  objectRef,
  pruneDecision,
  refOf,
  SET_KINDS,
  SET_LABEL_VALUE,
  type SetObject,
  setFieldManager,
  setLabelKey,
  validateObjectSet,
} from './object-set.js';

/** What applying and pruning a set calls on the shoot's API. */
export type ObjectSetApi = Pick<KubeClient, 'apply' | 'list' | 'mergePatch' | 'delete'>;

export interface ApplyObjectSetOptions {
  /** Field managers are `<prefix>/<set>`; default `gardener-osc`. */
  readonly fieldManagerPrefix?: string;
  /** Objects other rendered sets hold (even if not applied yet): never deleted by this set's prune. */
  readonly heldElsewhere?: readonly SetObject[];
  readonly log?: Logger;
  readonly signal?: AbortSignal;
}

export interface ObjectSetSummary {
  /** `Kind/name` or `Kind/namespace/name` of every object server-side applied. */
  readonly applied: string[];
  /** Deleted from the shoot. */
  readonly pruned: string[];
  /** No longer in the set, but kept (another set holds it, or mode Ignore). */
  readonly released: string[];
  /** Rendered with mode Ignore, so not applied (GRM: "no action is performed on the cluster"). */
  readonly ignored: string[];
}

export class ObjectSetApplyError extends Error {
  constructor(
    readonly set: string,
    readonly errors: readonly Error[],
    readonly summary: ObjectSetSummary,
  ) {
    super(`set ${set}: ${errors.length} operation(s) failed: ${errors.map((e) => e.message).join('; ')}`, {
      cause: errors[0],
    });
    this.name = 'ObjectSetApplyError';
  }
}

const Listed = z.object({ metadata: LiveMetadata });

function failed(what: string, error: unknown): Error {
  return new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

/**
 * Server-side applies every object of the set into the shoot (force, field manager `<prefix>/<set>`,
 * label `set.node-configuration.gardener.cloud/<set>: "true"`), then prunes the set's objects that
 * it no longer renders. Throws ObjectSetApplyError (with the summary so far) if anything failed.
 */
export async function applyObjectSet(
  shoot: ObjectSetApi,
  set: string,
  objects: readonly SetObject[],
  opts: ApplyObjectSetOptions = {},
): Promise<ObjectSetSummary> {
  validateObjectSet(set, objects);
  const fieldManager = setFieldManager(set, opts.fieldManagerPrefix ?? DEFAULT_FIELD_MANAGER);
  const log = (opts.log ?? silentLogger).child({ set });
  const summary: ObjectSetSummary = { applied: [], pruned: [], released: [], ignored: [] };
  const errors: Error[] = [];

  const desired = new Set<string>();
  const ignoredInSet = new Set<string>();
  for (const o of objects) {
    const ref = refOf(o);
    if (isIgnored(o.metadata.annotations)) {
      ignoredInSet.add(ref);
      summary.ignored.push(ref);
      continue;
    }
    desired.add(ref);
    const kind = kindOf(o)!;
    try {
      await shoot.apply(resourceOf(kind), applyBody(set, o), {
        fieldManager,
        force: true,
        signal: opts.signal,
      });
      summary.applied.push(ref);
    } catch (error) {
      errors.push(failed(`applying ${ref}`, error));
    }
  }
  if (errors.length > 0) throw new ObjectSetApplyError(set, errors, summary);

  const heldElsewhere = new Set((opts.heldElsewhere ?? []).map(refOf));
  const labelSelector = `${setLabelKey(set)}=${SET_LABEL_VALUE}`;
  const lists = await Promise.allSettled(
    SET_KINDS.map(async (kind) =>
      (await shoot.list(resourceOf(kind), { labelSelector }, opts.signal)).map(
        (o) => Listed.parse(o).metadata,
      ),
    ),
  );
  for (const [i, kind] of SET_KINDS.entries()) {
    const listed = lists[i]!;
    if (listed.status === 'rejected') {
      errors.push(failed(`listing ${kind.kind} of set ${set}`, listed.reason));
      continue;
    }
    for (const meta of listed.value) {
      const ref = objectRef(kind.kind, meta.name, meta.namespace);
      const decision = pruneDecision({
        set,
        labels: meta.labels,
        annotations: meta.annotations,
        desired: desired.has(ref),
        ignoredInSet: ignoredInSet.has(ref),
        heldElsewhere: heldElsewhere.has(ref),
      });
      if (decision.action === 'keep') continue;
      const resource = resourceOf(kind);
      const object = { name: meta.name, namespace: meta.namespace };
      try {
        if (decision.action === 'delete') {
          // preconditions: an object another set labelled since the list is never deleted
          const deleted = await shoot.delete(resource, object, {
            propagationPolicy: 'Background',
            ...(meta.uid ? { preconditions: { uid: meta.uid, resourceVersion: meta.resourceVersion } } : {}),
            signal: opts.signal,
          });
          if (!deleted) continue;
          summary.pruned.push(ref);
          log.info({ object: ref }, 'Deleted an object the set no longer renders');
        } else if (decision.how === 'unapply') {
          await shoot.apply(resource, emptyIntent(kind, meta.name, meta.namespace), {
            fieldManager,
            force: true,
            signal: opts.signal,
          });
          summary.released.push(ref);
          log.info({ object: ref, reason: decision.reason }, 'Released an object from the set');
        } else {
          await shoot.mergePatch(
            resource,
            object,
            { metadata: { labels: { [setLabelKey(set)]: null } } },
            { fieldManager, signal: opts.signal },
          );
          summary.released.push(ref);
          log.info(
            { object: ref, reason: decision.reason },
            'Released an object from the set, kept as it is',
          );
        }
      } catch (error) {
        if (isApiStatus(error, 404)) continue;
        errors.push(failed(`pruning ${ref} (${decision.action})`, error));
      }
    }
  }
  if (errors.length > 0) throw new ObjectSetApplyError(set, errors, summary);
  return summary;
}

/** Prunes everything of the set (a ManagedResource's deletion); objects held elsewhere or Ignore-marked stay. */
export function deleteObjectSet(
  shoot: ObjectSetApi,
  set: string,
  opts: ApplyObjectSetOptions = {},
): Promise<ObjectSetSummary> {
  return applyObjectSet(shoot, set, [], opts);
}

/**
 * Applies several sets (in the given order) and deletes the sets in `remove`, each knowing what the
 * other rendered sets hold, so an object moving from one set to another is never deleted in between.
 */
export async function applyObjectSets(
  shoot: ObjectSetApi,
  sets: ReadonlyMap<string, readonly SetObject[]>,
  opts: Omit<ApplyObjectSetOptions, 'heldElsewhere'> & { readonly remove?: readonly string[] } = {},
): Promise<Map<string, ObjectSetSummary>> {
  const others = (set: string) =>
    [...sets].filter(([name]) => name !== set).flatMap(([, objects]) => objects);
  const results = new Map<string, ObjectSetSummary>();
  for (const [set, objects] of sets)
    results.set(set, await applyObjectSet(shoot, set, objects, { ...opts, heldElsewhere: others(set) }));
  for (const set of opts.remove ?? []) {
    if (sets.has(set)) continue;
    results.set(set, await deleteObjectSet(shoot, set, { ...opts, heldElsewhere: others(set) }));
  }
  return results;
}
