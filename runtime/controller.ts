/**
 * The reconcile loop: workers take keys from a work queue and call the reconciler with a timeout.
 * An error requeues the key with backoff (never given up), `requeueAfterMs` re-adds it later and
 * resets its backoff, anything else forgets it. A thrown exception is an error like any other: a
 * bad object never crashes the controller.
 *
 * A timeout (or shutdown) aborts the reconcile's signal, and the worker then waits for the
 * reconcile to really end before the key is released: never two runs on one key, even when one
 * of them was abandoned. Every long operation below takes the signal, so the wait is short; a
 * reconcile that ignores it keeps its key, and says so in the log.
 */

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
  /** How often a reconcile still running after its signal aborted is reported (default 30 s). */
  readonly overrunLogIntervalMs?: number;
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
    const overrun = this.reportOverrun(controller.signal, log);
    const started = performance.now();
    metrics?.activeWorkers.inc({ controller: this.name });
    try {
      // awaited to the end, also after an abort: the key is released only when the run is over
      const result = await this.options.reconcile(key, { signal: controller.signal, log });
      if (controller.signal.aborted && !parent.aborted) throw controller.signal.reason;
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
      overrun.stop();
      parent.removeEventListener('abort', onAbort);
      metrics?.activeWorkers.dec({ controller: this.name });
      metrics?.reconcileTime.observe({ controller: this.name }, (performance.now() - started) / 1000);
    }
  }

  /** Once the signal aborted, logs every interval that the reconcile has not ended yet. */
  private reportOverrun(signal: AbortSignal, log: Logger): { stop(): void } {
    const every = this.options.overrunLogIntervalMs ?? 30_000;
    let interval: NodeJS.Timeout | undefined;
    const onAbort = () => {
      const abortedAt = performance.now();
      interval = setInterval(() => {
        log.warn(
          { sinceAbortMs: Math.round(performance.now() - abortedAt), reason: String(signal.reason) },
          'Reconcile still running after it was aborted; its key waits for it',
        );
      }, every);
      interval.unref();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    return {
      stop: () => {
        signal.removeEventListener('abort', onAbort);
        clearInterval(interval);
      },
    };
  }
}
