/**
 * One informer cache per cluster (the seed, each shoot): every controller that reads a kind with
 * the same scope and selectors gets the same informer, so a kind is listed and watched once per
 * cluster however many controllers read it, and reconcilers read the cache instead of listing.
 *
 * Informers asked for with `informer()` live as long as the cache. `acquire()` counts its holders
 * and stops the watch when the last one releases it (watches of single objects that come and go).
 * Objects are trimmed before they are cached: `metadata.managedFields` always, plus what the
 * cache's `transform` drops for a kind; listed ones get their apiVersion and kind, as watched
 * ones have them, so an object reads the same however it came into the cache.
 */
import type { Clock } from '../clock.js';
import { type Logger, silentLogger } from '../logging.js';
import type { RuntimeMetrics } from '../metrics.js';
import { Informer, withoutManagedFields } from './informer.js';
import type { KubeHttp } from './kube-http.js';
import type { KubeObject } from './list-watch.js';
import { collectionPath, type Resource } from './resource.js';

/** What one informer lists and watches. */
export interface WatchSpec {
  readonly resource: Resource;
  /** One namespace; all when undefined (namespaced kinds). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

export interface ClusterCacheOptions {
  /** For logs: `seed`, or the shoot's namespace. */
  readonly name: string;
  readonly http: KubeHttp;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly clock?: Clock;
  /** Trims the objects of a kind before they are cached (after managedFields are dropped). */
  readonly transform?: (resource: Resource, object: KubeObject) => KubeObject;
}

export interface AcquiredInformer<T extends KubeObject> {
  readonly informer: Informer<T>;
  /** Gives the informer back; the last holder's release stops its watch. */
  release(): void;
}

interface Entry {
  readonly informer: Informer<KubeObject>;
  readonly stop: AbortController;
  /** Asked for with informer(): lives as long as the cache. */
  permanent: boolean;
  holders: number;
}

export function watchKey(spec: WatchSpec): string {
  return [
    collectionPath(spec.resource, spec.namespace),
    spec.labelSelector ?? '',
    spec.fieldSelector ?? '',
  ].join('|');
}

export class ClusterCache {
  readonly name: string;
  private readonly entries = new Map<string, Entry>();
  private readonly stopping = new Set<Promise<void>>();
  private signal: AbortSignal | undefined;
  private readonly log: Logger;

  constructor(private readonly o: ClusterCacheOptions) {
    this.name = o.name;
    this.log = (o.log ?? silentLogger).child({ cache: o.name });
  }

  get http(): KubeHttp {
    return this.o.http;
  }

  /** The shared informer for `spec`, started at once when the cache runs (else by `start`). */
  informer<T extends KubeObject>(spec: WatchSpec): Informer<T> {
    const entry = this.entry(spec);
    entry.permanent = true;
    return entry.informer as Informer<T>;
  }

  /** The shared informer for `spec`, held until `release()`. */
  acquire<T extends KubeObject>(spec: WatchSpec): AcquiredInformer<T> {
    const key = watchKey(spec);
    const entry = this.entry(spec);
    entry.holders++;
    let released = false;
    return {
      informer: entry.informer as Informer<T>,
      release: () => {
        if (released) return;
        released = true;
        entry.holders--;
        if (entry.holders > 0 || entry.permanent || this.entries.get(key) !== entry) return;
        this.entries.delete(key);
        entry.stop.abort();
        const done = entry.informer.stopped();
        this.stopping.add(done);
        void done.finally(() => this.stopping.delete(done));
      },
    };
  }

  /** Starts every informer asked for so far, and later ones at once; all stop when `signal` aborts. */
  start(signal: AbortSignal): void {
    if (this.signal) return;
    this.signal = signal;
    for (const entry of this.entries.values()) this.run(entry);
  }

  get started(): boolean {
    return this.signal !== undefined;
  }

  /** Resolves once every informer asked for so far has listed (rejects when `signal` aborts). */
  async waitForSync(signal?: AbortSignal): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => e.informer.waitForSync(signal)));
  }

  /** Resolves once every informer stopped after the cache's signal aborted. */
  async stopped(): Promise<void> {
    await Promise.all([...[...this.entries.values()].map((e) => e.informer.stopped()), ...this.stopping]);
  }

  /** The watches this cache holds, by key (for diagnostics and tests). */
  watches(): string[] {
    return [...this.entries.keys()].sort();
  }

  private entry(spec: WatchSpec): Entry {
    const key = watchKey(spec);
    const existing = this.entries.get(key);
    if (existing) return existing;
    const transform = this.o.transform;
    const informer = new Informer<KubeObject>({
      http: this.o.http,
      path: collectionPath(spec.resource, spec.namespace),
      labelSelector: spec.labelSelector,
      fieldSelector: spec.fieldSelector,
      clock: this.o.clock,
      log: this.log,
      metrics: this.o.metrics,
      transform: <T extends KubeObject>(object: T): T => {
        // items of a list carry no apiVersion and kind (the list does): every cached object does
        const typed = object.kind
          ? object
          : { ...object, apiVersion: spec.resource.apiVersion, kind: spec.resource.kind };
        const trimmed = withoutManagedFields(typed);
        return (transform ? transform(spec.resource, trimmed) : trimmed) as T;
      },
    });
    const entry: Entry = { informer, stop: new AbortController(), permanent: false, holders: 0 };
    this.entries.set(key, entry);
    if (this.signal) this.run(entry);
    return entry;
  }

  private run(entry: Entry): void {
    const signal = this.signal;
    if (!signal) return;
    entry.informer.start(AbortSignal.any([signal, entry.stop.signal]));
  }
}
