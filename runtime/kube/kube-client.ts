/**
 * The one API client of the project (both sides): typed REST verbs on the kinds of `RESOURCE`
 * over `KubeHttp` (kept-alive node:https connections, credentials per request). Bodies go to the
 * server exactly as given (a merge patch's `null` removes a field; an apply intent is sent as
 * written), and every failure is a `KubeStatusError` with the HTTP status and the Status reason.
 * Watches are informers over the same `KubeHttp` (cluster-cache.ts).
 *
 * Reconcilers do not take this class but the narrow interface of what they call (`Pick<KubeClient,
 * 'getIfExists' | 'mergePatch'>`, say), so what a controller may do is visible in its signature.
 */

import { isApiStatus } from './api-status.js';
import type { KubeHttp } from './kube-http.js';
import { collectionPath, objectPath, type Resource } from './resource.js';

export const MERGE_PATCH = 'application/merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';
export const JSON_PATCH = 'application/json-patch+json';

/** Names one object; `namespace` only for namespaced kinds. */
export interface ObjectRef {
  readonly name: string;
  readonly namespace?: string;
}

export interface ListOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface WriteOptions {
  /** Default: the client's field manager. */
  readonly fieldManager?: string;
  readonly subresource?: 'status' | 'approval';
  readonly signal?: AbortSignal;
}

export interface ApplyOptions extends WriteOptions {
  /** Take over fields another manager owns (conflicts are errors otherwise). */
  readonly force?: boolean;
}

export interface DeleteOptions {
  /** The delete fails with 409 unless the live object still has this uid / resourceVersion. */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  readonly signal?: AbortSignal;
}

interface Named {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
}

const LIST_PAGE_SIZE = 500;

export class KubeClient {
  constructor(
    readonly http: KubeHttp,
    private readonly defaults: { readonly fieldManager?: string } = {},
  ) {}

  /** The object; a missing one is a KubeStatusError 404. */
  get<T>(r: Resource, ref: ObjectRef, signal?: AbortSignal): Promise<T> {
    return this.json<T>('GET', objectPath(r, ref.name, ref.namespace), undefined, { signal });
  }

  /** The object, or undefined when it does not exist. */
  async getIfExists<T>(r: Resource, ref: ObjectRef, signal?: AbortSignal): Promise<T | undefined> {
    try {
      return await this.get<T>(r, ref, signal);
    } catch (e) {
      if (isApiStatus(e, 404)) return undefined;
      throw e;
    }
  }

  /** Every object (all pages) of the kind in one namespace, or in all when none is given. */
  async list<T>(r: Resource, options: ListOptions = {}, signal?: AbortSignal): Promise<T[]> {
    const items: T[] = [];
    let next: string | undefined;
    do {
      const page = await this.json<{ metadata?: { continue?: string }; items?: T[] | null }>(
        'GET',
        collectionPath(r, options.namespace),
        undefined,
        {
          signal,
          query: {
            labelSelector: options.labelSelector,
            fieldSelector: options.fieldSelector,
            limit: LIST_PAGE_SIZE,
            continue: next,
          },
        },
      );
      items.push(...(page.items ?? []));
      next = page.metadata?.continue || undefined;
    } while (next);
    return items;
  }

  /** Creates the object in its namespace; an existing one is a KubeStatusError 409 (AlreadyExists). */
  create<T extends Named>(r: Resource, object: T, options: WriteOptions = {}): Promise<T> {
    return this.json<T>('POST', collectionPath(r, object.metadata?.namespace), object, {
      signal: options.signal,
      query: { fieldManager: options.fieldManager ?? this.defaults.fieldManager },
    });
  }

  /** Creates a subresource of an object, e.g. a TokenRequest (`serviceaccounts/<name>/token`). */
  createSubresource<T>(
    r: Resource,
    ref: ObjectRef,
    subresource: string,
    body: unknown,
    options: WriteOptions = {},
  ) {
    return this.json<T>('POST', objectPath(r, ref.name, ref.namespace, subresource), body, {
      signal: options.signal,
      query: { fieldManager: options.fieldManager ?? this.defaults.fieldManager },
    });
  }

  /** Replaces the object (or its status); its resourceVersion, if set, is an optimistic lock (409). */
  update<T extends Named>(r: Resource, object: T, options: WriteOptions = {}): Promise<T> {
    return this.json<T>('PUT', this.pathOf(r, object, options.subresource), object, {
      signal: options.signal,
      query: { fieldManager: options.fieldManager ?? this.defaults.fieldManager },
    });
  }

  /**
   * A JSON merge patch (RFC 7386) of the object or its status: `null` removes a field, lists are
   * replaced whole, a `metadata.resourceVersion` in the patch is an optimistic lock (409).
   */
  mergePatch<T>(r: Resource, ref: ObjectRef, patch: unknown, options: WriteOptions = {}): Promise<T> {
    return this.json<T>('PATCH', objectPath(r, ref.name, ref.namespace, options.subresource), patch, {
      signal: options.signal,
      contentType: MERGE_PATCH,
      query: { fieldManager: options.fieldManager ?? this.defaults.fieldManager },
    });
  }

  /** A JSON patch (RFC 6902): a list of operations, e.g. a `test` before a `remove`. */
  jsonPatch<T>(r: Resource, ref: ObjectRef, operations: readonly unknown[], options: WriteOptions = {}) {
    return this.json<T>('PATCH', objectPath(r, ref.name, ref.namespace, options.subresource), operations, {
      signal: options.signal,
      contentType: JSON_PATCH,
      query: { fieldManager: options.fieldManager ?? this.defaults.fieldManager },
    });
  }

  /**
   * Server-side apply of an intent (apiVersion, kind, name, namespace and the fields this manager
   * owns); fields the manager applied before and leaves out are removed.
   */
  apply<T extends Named>(r: Resource, intent: T, options: ApplyOptions = {}): Promise<T> {
    const fieldManager = options.fieldManager ?? this.defaults.fieldManager;
    if (!fieldManager) throw new Error('server-side apply needs a field manager');
    return this.json<T>('PATCH', this.pathOf(r, intent, options.subresource), intent, {
      signal: options.signal,
      contentType: APPLY_PATCH,
      query: { fieldManager, force: options.force ? true : undefined },
    });
  }

  /** Deletes the object; false when it did not exist. */
  async delete(r: Resource, ref: ObjectRef, options: DeleteOptions = {}): Promise<boolean> {
    const { preconditions, propagationPolicy } = options;
    const body =
      preconditions || propagationPolicy
        ? { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy, preconditions }
        : undefined;
    try {
      const response = await this.http.send(
        'DELETE',
        { path: objectPath(r, ref.name, ref.namespace), signal: options.signal },
        body,
      );
      await response.body.dump();
      return true;
    } catch (e) {
      if (isApiStatus(e, 404)) return false;
      throw e;
    }
  }

  /** Deletes every object of the kind that the selectors match in one namespace. */
  async deleteCollection(r: Resource, options: ListOptions, signal?: AbortSignal): Promise<void> {
    const response = await this.http.send('DELETE', {
      path: collectionPath(r, options.namespace),
      query: { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector },
      signal,
    });
    await response.body.dump();
  }

  private pathOf(r: Resource, object: Named, subresource?: string): string {
    const name = object.metadata?.name;
    if (!name) throw new Error(`a ${r.kind} without metadata.name cannot be addressed`);
    return objectPath(r, name, object.metadata?.namespace, subresource);
  }

  private async json<T>(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    path: string,
    body: unknown,
    o: {
      readonly signal?: AbortSignal;
      readonly contentType?: string;
      readonly query?: Record<string, string | number | boolean | undefined>;
    },
  ): Promise<T> {
    const response = await this.http.send(
      method,
      { path, query: o.query, signal: o.signal },
      body,
      o.contentType,
    );
    return (await response.body.json()) as T;
  }
}
