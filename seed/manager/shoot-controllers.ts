/**
 * The per-shoot controllers (controllers/index.ts names them): started when a Cluster becomes
 * selected and its shoot is reachable, stopped when it is deselected or deleted. A shoot whose
 * credentials are missing yet (a new shoot) is retried with backoff.
 */
import { setMaxListeners } from 'node:events';
import type { Registry } from 'prom-client';
import type { Cluster } from '../../api/index.js';
import { Backoff } from '../../runtime/backoff.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { KubeHttp } from '../../runtime/kube/kube-http.js';
import type { Logger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';
import type { ShootClients } from './shoot-clients.js';
import type { RunningShootController, ShootContext } from './shoot-context.js';

interface Running {
  readonly abort: AbortController;
  readonly controllers: RunningShootController[];
  cluster: Cluster;
}

/** Starts one controller for a shoot; its signal aborts when the shoot's controllers stop. */
export type ShootControllerStarter = (
  ctx: ShootContext,
  seed: { readonly http: KubeHttp },
  signal: AbortSignal,
) => RunningShootController;

export interface ShootControllersOptions {
  readonly starters: readonly ShootControllerStarter[];
  readonly seedHttp: KubeHttp;
  readonly shoots: ShootClients;
  readonly recorder: EventRecorder;
  readonly metrics: RuntimeMetrics;
  readonly registry: Registry;
  readonly log: Logger;
}

export class ShootControllers {
  private readonly running = new Map<string, Running>();
  private readonly starting = new Map<string, AbortController>();

  constructor(private readonly o: ShootControllersOptions) {}

  /** Starts, updates or stops the controllers of one shoot to match its Cluster. */
  sync(namespace: string, selected: (namespace: string) => Cluster | undefined, signal: AbortSignal): void {
    const cluster = selected(namespace);
    const running = this.running.get(namespace);
    if (!cluster) {
      this.stop(namespace);
      return;
    }
    if (running) {
      running.cluster = cluster;
      return;
    }
    if (this.starting.has(namespace) || signal.aborted) return;
    const attempt = new AbortController();
    this.starting.set(namespace, attempt);
    const onAbort = () => attempt.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    void this.start(namespace, selected, attempt.signal, signal).finally(() => {
      signal.removeEventListener('abort', onAbort);
      if (this.starting.get(namespace) === attempt) this.starting.delete(namespace);
    });
  }

  /** `signal` cancels this start attempt; the started controllers live until `parent` aborts or stop(). */
  private async start(
    namespace: string,
    selected: (namespace: string) => Cluster | undefined,
    signal: AbortSignal,
    parent: AbortSignal,
  ): Promise<void> {
    const backoff = new Backoff({ baseMs: 1_000, maxMs: 60_000 });
    const log = this.o.log.child({ shoot: namespace });
    while (!signal.aborted) {
      const cluster = selected(namespace);
      if (!cluster) return;
      try {
        const shootKubeConfig = await this.o.shoots.kubeConfig(namespace);
        if (signal.aborted) return;
        const abort = new AbortController();
        setMaxListeners(100, abort.signal);
        parent.addEventListener('abort', () => abort.abort(), { once: true });
        const entry: Running = { abort, controllers: [], cluster };
        const ctx: ShootContext = {
          namespace,
          shootKubeConfig,
          cluster: () => entry.cluster,
          log,
          metrics: this.o.metrics,
          recorder: this.o.recorder,
        };
        for (const start of this.o.starters)
          entry.controllers.push(start(ctx, { http: this.o.seedHttp }, abort.signal));
        this.running.set(namespace, entry);
        log.info('Started the per-shoot controllers');
        return;
      } catch (e) {
        const wait = backoff.next();
        log.info({ err: e, retryInMs: wait }, 'Shoot not reachable yet');
        await new Promise((r) => setTimeout(r, wait).unref());
      }
    }
  }

  private stop(namespace: string): void {
    this.starting.get(namespace)?.abort();
    this.starting.delete(namespace);
    const running = this.running.get(namespace);
    if (!running) return;
    running.abort.abort();
    this.running.delete(namespace);
    this.o.shoots.forget(namespace);
    this.o.log.info({ shoot: namespace }, 'Stopped the per-shoot controllers');
  }

  /** Resolves once every per-shoot controller stopped after the signal aborted. */
  async stopped(signal: AbortSignal): Promise<void> {
    if (!signal.aborted) await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
    await Promise.allSettled(
      [...this.running.values()].flatMap((r) => r.controllers.map((c) => c.stopped())),
    );
  }
}
