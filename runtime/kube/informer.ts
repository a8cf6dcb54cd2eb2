/**
 * A cache of the objects one list-watch sees, with add/update/delete handlers. A relist (after a
 * 410) is diffed against the cache, so handlers see the deletes and changes that happened while
 * the watch was down, and never a duplicate add. A `transform` trims each object before it is
 * cached (managed fields, say), so what nobody reads costs no memory.
 */
import { type Logger, silentLogger } from '../logging.js';
import { type KubeObject, ListWatch, type ListWatchOptions, type WatchEventType } from './list-watch.js';

export interface InformerHandlers<T> {
  add?(object: T): void;
  update?(previous: T, next: T): void;
  delete?(object: T): void;
}

export interface InformerOptions extends ListWatchOptions {
  /** Applied to every listed or watched object before it is cached and handed to handlers. */
  readonly transform?: <T extends KubeObject>(object: T) => T;
}

/** Drops `metadata.managedFields`: large, and read by no controller. */
export function withoutManagedFields<T extends KubeObject>(object: T): T {
  const metadata = object.metadata as (KubeObject['metadata'] & { managedFields?: unknown }) | undefined;
  if (!metadata?.managedFields) return object;
  const { managedFields, ...rest } = metadata;
  void managedFields;
  return { ...object, metadata: rest };
}

export function objectKey(o: KubeObject): string {
  const { namespace, name } = o.metadata ?? {};
  return namespace ? `${namespace}/${name}` : (name ?? '');
}

export class Informer<T extends KubeObject> {
  private readonly cache = new Map<string, T>();
  private readonly handlers: InformerHandlers<T>[] = [];
  private readonly listWatch: ListWatch<T>;
  private readonly log: Logger;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private running: Promise<void> | undefined;

  constructor(options: InformerOptions) {
    this.log = options.log ?? silentLogger;
    const transform = options.transform ?? ((o: T) => o);
    this.listWatch = new ListWatch<T>(options, {
      onList: (items) => this.replace(items.map(transform)),
      onEvent: (type, object) => this.apply(type, transform(object)),
    });
  }

  on(handlers: InformerHandlers<T>): this {
    this.handlers.push(handlers);
    return this;
  }

  /**
   * Adds handlers that see every object already cached as an add (as client-go's do), then the
   * changes; the returned function removes them again (a controller stopping while the cache
   * lives on, say).
   */
  subscribe(handlers: InformerHandlers<T>): () => void {
    this.handlers.push(handlers);
    for (const object of this.cache.values()) this.call(handlers, (h) => h.add?.(object));
    return () => {
      const i = this.handlers.indexOf(handlers);
      if (i >= 0) this.handlers.splice(i, 1);
    };
  }

  start(signal: AbortSignal): void {
    this.running ??= this.listWatch.run(signal);
  }

  async stopped(): Promise<void> {
    await this.running;
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves once the first list is in the cache. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.syncWaiters.push(resolve);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }

  get(name: string, namespace?: string): T | undefined {
    return this.cache.get(namespace ? `${namespace}/${name}` : name);
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  /** Watch statistics, for tests and diagnostics. */
  get stats(): {
    lists: number;
    watchesOpened: number;
    resourceVersion: string | undefined;
    staleSince: number | undefined;
  } {
    return {
      lists: this.listWatch.lists,
      watchesOpened: this.listWatch.watchesOpened,
      resourceVersion: this.listWatch.latestResourceVersion,
      staleSince: this.listWatch.staleSince,
    };
  }

  private replace(items: T[]): void {
    const fresh = new Map(items.map((o) => [objectKey(o), o] as const));
    for (const [key, old] of this.cache) {
      if (!fresh.has(key)) {
        this.cache.delete(key);
        this.emit((h) => h.delete?.(old));
      }
    }
    for (const [key, object] of fresh) {
      const old = this.cache.get(key);
      this.cache.set(key, object);
      if (!old) this.emit((h) => h.add?.(object));
      else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion)
        this.emit((h) => h.update?.(old, object));
    }
    if (!this.synced) {
      this.synced = true;
      for (const resolve of this.syncWaiters.splice(0)) resolve();
    }
  }

  private apply(type: WatchEventType, object: T): void {
    const key = objectKey(object);
    const old = this.cache.get(key);
    if (type === 'DELETED') {
      this.cache.delete(key);
      this.emit((h) => h.delete?.(old ?? object));
      return;
    }
    this.cache.set(key, object);
    if (old) this.emit((h) => h.update?.(old, object));
    else this.emit((h) => h.add?.(object));
  }

  private emit(call: (h: InformerHandlers<T>) => void): void {
    for (const h of [...this.handlers]) this.call(h, call);
  }

  private call(h: InformerHandlers<T>, call: (h: InformerHandlers<T>) => void): void {
    try {
      call(h);
    } catch (error) {
      this.log.error({ err: error }, 'Informer event handler failed');
    }
  }
}
