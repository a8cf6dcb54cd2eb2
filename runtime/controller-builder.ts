/**
 * The one way a controller is put together, on the seed and on the node: watches (a source, the
 * keys an object maps to, the events that count) feed a keyed work queue, and the reconciler runs
 * once every watched source has synced. The builder owns the lifecycle: on the signal's abort it
 * unsubscribes every watch, waits for the reconciles in flight, then runs the controller's
 * clean-up and removes the metric series it owns. This is controller-runtime's builder
 * (sigs.k8s.io/controller-runtime v0.17 pkg/builder/controller.go: `For`/`Watches` with
 * predicates, `Complete(reconciler)`) over this project's informers and queue.
 */
import { whenAborted } from './abort.js';
import { Controller, type ControllerOptions, type Reconciler } from './controller.js';
import {
  ALL_EVENTS,
  type EventPredicate,
  passesCreate,
  passesDelete,
  passesUpdate,
} from './event-predicate.js';
import type { InformerHandlers } from './kube/informer.js';
import type { RunningController } from './running-controller.js';
import { WorkQueue } from './work-queue.js';

/** What a controller watches: an informer, shared or its own. */
export interface WatchSource<T> {
  subscribe(handlers: InformerHandlers<T>): () => void;
  waitForSync(signal?: AbortSignal): Promise<void>;
}

/** The keys an object's event enqueues (none: undefined or an empty list). */
export type KeyMap<T, K extends string> = (object: T) => K | readonly K[] | undefined;

export interface WatchOptions<K extends string> {
  /** Adds the key after this long (a batch delay), or after what the function says for it. */
  readonly delayMs?: number | ((key: K) => number);
  /** Whether the first reconcile waits for this source (default true). */
  readonly waitForSync?: boolean;
}

/** A metric series the controller owns: it is removed when the controller stops. */
export interface OwnedSeries {
  remove(labels: Record<string, string>): void;
}

export type ControllerSettings<K extends string> = Omit<ControllerOptions<K>, 'name' | 'reconcile' | 'queue'>;

/** A started controller that can watch more sources while it runs (targets that come and go). */
export interface WatchingController<K extends string = string> extends RunningController<K> {
  /** Adds a watch now; the returned function removes it (it is removed on stop anyway). */
  watch<T>(
    source: WatchSource<T>,
    keys: KeyMap<T, K>,
    predicate?: EventPredicate<T>,
    options?: WatchOptions<K>,
  ): () => void;
}

interface WatchSpec<K extends string> {
  readonly source: WatchSource<unknown>;
  readonly keys: KeyMap<unknown, K>;
  readonly predicate: EventPredicate<unknown>;
  readonly options: WatchOptions<K>;
}

export class ControllerBuilder<K extends string = string> {
  readonly name: string;
  /** The controller's queue, there before it starts (a reconciler's own wake-ups use it). */
  readonly queue: WorkQueue<K>;
  private readonly settings: ControllerSettings<K>;
  private readonly watchSpecs: WatchSpec<K>[] = [];
  private readonly readSources: WatchSource<unknown>[] = [];
  private readonly startKeys: K[] = [];
  private readonly readiness: ((signal: AbortSignal) => Promise<void>)[] = [];
  private readonly cleanups: (() => void | Promise<void>)[] = [];
  private readonly series: [OwnedSeries, Record<string, string>][] = [];

  constructor(name: string, settings: ControllerSettings<K> = {}) {
    this.name = name;
    this.settings = settings;
    this.queue = new WorkQueue<K>({ name, clock: settings.clock, metrics: settings.metrics });
  }

  /** Events of `source` that pass `predicate` (default: every event) enqueue the keys `keys` maps to. */
  watches<T>(
    source: WatchSource<T>,
    keys: KeyMap<T, K>,
    predicate: EventPredicate<T> = ALL_EVENTS,
    options: WatchOptions<K> = {},
  ): this {
    this.watchSpecs.push({
      source: source as WatchSource<unknown>,
      keys: keys as KeyMap<unknown, K>,
      predicate: predicate as EventPredicate<unknown>,
      options,
    });
    return this;
  }

  /** The reconciler reads `source` without watching it: the first reconcile waits for its sync too. */
  reads(...sources: WatchSource<unknown>[]): this {
    this.readSources.push(...sources);
    return this;
  }

  /** Keys queued once the workers start (a controller with one key per shoot, a periodic one). */
  enqueueOnStart(...keys: K[]): this {
    this.startKeys.push(...keys);
    return this;
  }

  /** Readiness waits for this too, without holding back the first reconcile. */
  readyWhen(ready: (signal: AbortSignal) => Promise<void>): this {
    this.readiness.push(ready);
    return this;
  }

  /** Runs after the workers stopped, in the order given. */
  onStop(cleanup: () => void | Promise<void>): this {
    this.cleanups.push(cleanup);
    return this;
  }

  /** Removes `labels` from `metric` after the workers stopped (and after `onStop`). */
  ownsSeries(metric: OwnedSeries, labels: Record<string, string>): this {
    this.series.push([metric, labels]);
    return this;
  }

  /** Subscribes the watches, starts the workers once the sources synced, stops when `signal` aborts. */
  start(signal: AbortSignal, reconcile: Reconciler<K>): WatchingController<K> {
    const controller = new Controller<K>({ ...this.settings, name: this.name, reconcile, queue: this.queue });
    const unsubscribes = new Set<() => void>();
    const watch = <T>(
      source: WatchSource<T>,
      keys: KeyMap<T, K>,
      predicate: EventPredicate<T> = ALL_EVENTS,
      options: WatchOptions<K> = {},
    ): (() => void) => {
      if (signal.aborted) return () => undefined;
      const enqueue = (object: T) => {
        const mapped = keys(object);
        if (mapped === undefined) return;
        for (const key of typeof mapped === 'string' ? [mapped as K] : (mapped as readonly K[])) {
          const delay = typeof options.delayMs === 'function' ? options.delayMs(key) : options.delayMs;
          if (delay === undefined) this.queue.add(key);
          else this.queue.addAfter(key, delay);
        }
      };
      const unsubscribe = source.subscribe({
        add: (o) => passesCreate(predicate, o) && enqueue(o),
        update: (previous, next) => passesUpdate(predicate, previous, next) && enqueue(next),
        delete: (o) => passesDelete(predicate, o) && enqueue(o),
      });
      const remove = () => {
        if (unsubscribes.delete(remove)) unsubscribe();
      };
      unsubscribes.add(remove);
      return remove;
    };
    for (const w of this.watchSpecs) watch(w.source, w.keys, w.predicate, w.options);
    const gating = [
      ...this.watchSpecs.filter((w) => w.options.waitForSync !== false).map((w) => w.source),
      ...this.readSources,
    ];
    // reconcile only on full caches: a partial list looks like objects that are gone
    const started = Promise.all(gating.map((s) => s.waitForSync(signal))).then(() => {
      controller.start(signal);
      for (const key of this.startKeys) this.queue.add(key);
    });
    started.catch(() => undefined);
    const synced = Promise.all([started, ...this.readiness.map((ready) => ready(signal))]).then(
      () => undefined,
    );
    synced.catch(() => undefined);
    const stopped = (async () => {
      await whenAborted(signal);
      for (const remove of [...unsubscribes]) remove();
      // also when the sources never synced: no delayed add outlives the controller
      this.queue.shutDown();
      await controller.stopped();
      for (const cleanup of this.cleanups) await cleanup();
      for (const [metric, labels] of this.series) metric.remove(labels);
    })();
    return { name: this.name, controller, watch, synced: () => synced, stopped: () => stopped };
  }
}

/** Starts building the controller `name`. */
export function newController<K extends string = string>(
  name: string,
  settings?: ControllerSettings<K>,
): ControllerBuilder<K> {
  return new ControllerBuilder<K>(name, settings);
}
