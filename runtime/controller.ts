/**
 * The reconcile loop: workers take keys from a work queue and call the reconciler with a timeout.
 * An error requeues the key with backoff (never given up), `requeueAfterMs` re-adds it later and
 * resets its backoff, anything else forgets it. A thrown exception is an error like any other: a
 * bad object never crashes the controller.
 */

import { untilAborted } from './abort.js';
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import { type Logger, silentLogger } from './logging.js';
import type { RuntimeMetrics } from './metrics.js';
import { WorkQueue } from './work-queue.js';

export interface ReconcileResult {
  readonly requeueAfterMs?: number;
}

export interface ReconcileContext {
  readonly signal: AbortSignal;
  readonly log: Logger;
}

export type Reconciler<K extends string = string> = (
  key: K,
  ctx: ReconcileContext,
) => Promise<ReconcileResult | undefined | void>;

export interface ControllerOptions<K extends string> {
  readonly name: string;
  readonly reconcile: Reconciler<K>;
  readonly concurrency?: number;
  /** Per-reconcile timeout (upstream: 3 minutes for most controllers). */
  readonly timeoutMs?: number;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly queue?: WorkQueue<K>;
}

export class ReconcileTimeoutError extends Error {
  constructor(controller: string, key: string, ms: number) {
    super(`reconcile of ${key} by ${controller} timed out after ${ms} ms`);
    this.name = 'ReconcileTimeoutError';
  }
}

export class Controller<K extends string = string> {
  readonly name: string;
  readonly queue: WorkQueue<K>;
  private readonly options: ControllerOptions<K>;
  private readonly log: Logger;
  private workers: Promise<void>[] = [];

  constructor(options: ControllerOptions<K>) {
    this.options = options;
    this.name = options.name;
    this.log = (options.log ?? silentLogger).child({ controller: options.name });
    this.queue =
      options.queue ??
      new WorkQueue<K>({ name: options.name, clock: options.clock ?? realClock, metrics: options.metrics });
  }

  /** Starts the workers; they stop when the signal aborts (the queue is shut down). */
  start(signal: AbortSignal): void {
    const concurrency = Math.max(1, this.options.concurrency ?? 1);
    this.options.metrics?.maxConcurrentReconciles.set({ controller: this.name }, concurrency);
    const stop = () => this.queue.shutDown();
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    for (let i = 0; i < concurrency; i++) this.workers.push(this.work(signal));
  }

  /** Resolves once every worker finished its current reconcile after shutdown. */
  async stopped(): Promise<void> {
    await Promise.all(this.workers);
  }

  private async work(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.reconcileOne(key, signal);
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async reconcileOne(key: K, parent: AbortSignal): Promise<void> {
    const { metrics, timeoutMs } = this.options;
    const log = this.log.child({ key });
    const controller = new AbortController();
    const onAbort = () => controller.abort(parent.reason);
    parent.addEventListener('abort', onAbort, { once: true });
    const timer = timeoutMs
      ? setTimeout(() => controller.abort(new ReconcileTimeoutError(this.name, key, timeoutMs)), timeoutMs)
      : undefined;
    const started = performance.now();
    metrics?.activeWorkers.inc({ controller: this.name });
    try {
      const result = await untilAborted(
        this.options.reconcile(key, { signal: controller.signal, log }),
        controller.signal,
      );
      this.queue.forget(key);
      if (result?.requeueAfterMs !== undefined && result.requeueAfterMs >= 0) {
        this.queue.addAfter(key, result.requeueAfterMs);
        metrics?.reconcileTotal.inc({ controller: this.name, result: 'requeue_after' });
      } else {
        metrics?.reconcileTotal.inc({ controller: this.name, result: 'success' });
      }
    } catch (error) {
      if (parent.aborted) return;
      metrics?.reconcileTotal.inc({ controller: this.name, result: 'error' });
      metrics?.reconcileErrors.inc({ controller: this.name });
      log.error({ err: error, retries: this.queue.numRequeues(key) }, 'Reconciler error');
      this.queue.addRateLimited(key);
    } finally {
      clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
      metrics?.activeWorkers.dec({ controller: this.name });
      metrics?.reconcileTime.observe({ controller: this.name }, (performance.now() - started) / 1000);
    }
  }
}
