/**
 * A keyed work queue with client-go's semantics: a key is queued at most once (dedupe), never
 * handed to two workers at once (a key re-added while processed is processed again afterwards),
 * delayed adds keep the earliest due time, and failures are retried with per-key exponential
 * backoff (5 ms doubling to 1000 s) combined with an overall token bucket (10/s, burst 100).
 */
import type { Clock, TimerHandle } from './clock.js';
import { realClock } from './clock.js';
import type { RuntimeMetrics } from './metrics.js';

export interface WorkQueueOptions {
  readonly name: string;
  readonly clock?: Clock;
  readonly metrics?: RuntimeMetrics;
  readonly backoffBaseMs?: number;
  readonly backoffMaxMs?: number;
  readonly bucketQps?: number;
  readonly bucketBurst?: number;
}

interface Waiting {
  due: number;
  timer: TimerHandle;
}

export class WorkQueue<K extends string = string> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly metrics: RuntimeMetrics | undefined;
  private readonly queue: K[] = [];
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly waiting = new Map<K, Waiting>();
  private readonly failures = new Map<K, number>();
  private readonly addedAt = new Map<K, number>();
  private readonly getters: ((key: K | undefined) => void)[] = [];
  private readonly backoffBaseMs: number;
  private readonly backoffMaxMs: number;
  private readonly bucketQps: number;
  private readonly bucketBurst: number;
  private bucketTokens: number;
  private bucketLast: number;
  private shuttingDown = false;

  constructor(options: WorkQueueOptions) {
    this.name = options.name;
    this.clock = options.clock ?? realClock;
    this.metrics = options.metrics;
    this.backoffBaseMs = options.backoffBaseMs ?? 5;
    this.backoffMaxMs = options.backoffMaxMs ?? 1_000_000;
    this.bucketQps = options.bucketQps ?? 10;
    this.bucketBurst = options.bucketBurst ?? 100;
    this.bucketTokens = this.bucketBurst;
    this.bucketLast = this.clock.now();
  }

  /** Queues the key now (cancelling a later delayed add of it). */
  add(key: K): void {
    if (this.shuttingDown) return;
    this.cancelWaiting(key);
    if (this.dirty.has(key)) return;
    this.dirty.add(key);
    this.metrics?.queueAdds.inc({ name: this.name });
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  /** Queues the key after `delayMs`; if it is already queued or due earlier, nothing changes. */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    if (this.dirty.has(key)) return;
    const due = this.clock.now() + delayMs;
    const existing = this.waiting.get(key);
    if (existing && existing.due <= due) return;
    existing?.timer.cancel();
    const timer = this.clock.setTimer(() => {
      this.waiting.delete(key);
      this.add(key);
    }, delayMs);
    this.waiting.set(key, { due, timer });
  }

  /** Queues the key again after its backoff; call `forget` once it succeeded. */
  addRateLimited(key: K): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.metrics?.queueRetries.inc({ name: this.name });
    const perItem = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** Math.min(n, 52));
    this.addAfter(key, Math.max(perItem, this.bucketDelay()));
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /** When the key is due, if it waits for a delayed add (for tests and diagnostics). */
  dueAt(key: K): number | undefined {
    return this.waiting.get(key)?.due;
  }

  /** The next key to process, or undefined once the queue is shut down. */
  get(): Promise<K | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.startProcessing(key));
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks the key processed; if it was re-added meanwhile, it is queued again. */
  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) this.enqueue(key);
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) w.timer.cancel();
    this.waiting.clear();
    for (const resolve of this.getters.splice(0)) resolve(undefined);
  }

  get length(): number {
    return this.queue.length;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  private enqueue(key: K): void {
    this.addedAt.set(key, this.clock.now());
    const getter = this.getters.shift();
    if (getter) {
      getter(this.startProcessing(key));
    } else {
      this.queue.push(key);
    }
    this.metrics?.queueDepth.set({ name: this.name }, this.queue.length);
  }

  private startProcessing(key: K): K {
    this.dirty.delete(key);
    this.processing.add(key);
    const added = this.addedAt.get(key);
    if (added !== undefined)
      this.metrics?.queueLatency.observe({ name: this.name }, (this.clock.now() - added) / 1000);
    this.metrics?.queueDepth.set({ name: this.name }, this.queue.length);
    return key;
  }

  private cancelWaiting(key: K): void {
    const w = this.waiting.get(key);
    if (!w) return;
    w.timer.cancel();
    this.waiting.delete(key);
  }

  /** The overall token bucket: how long until a token is free (and take it). */
  private bucketDelay(): number {
    const now = this.clock.now();
    this.bucketTokens = Math.min(
      this.bucketBurst,
      this.bucketTokens + ((now - this.bucketLast) / 1000) * this.bucketQps,
    );
    this.bucketLast = now;
    this.bucketTokens -= 1;
    return this.bucketTokens >= 0 ? 0 : (-this.bucketTokens / this.bucketQps) * 1000;
  }
}
