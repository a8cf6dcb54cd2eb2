/**
 * The selected shoots while this process leads: for each selected Cluster whose shoot credentials
 * can be read, one API client and one informer cache of the shoot, and the per-shoot controllers
 * (controllers/index.ts names them). A shoot starts when its Cluster is selected and its
 * credentials decode, and stops (controllers, watches, connections) when it is deselected or its
 * Cluster is gone (while the Cluster is being deleted it runs on: what we put into it is removed
 * then). A shoot whose credentials are missing yet (a new shoot) is tried again with
 * backoff, and at once when its `gardener-internal` secret changes.
 */
import { setMaxListeners } from 'node:events';
import type { V1Secret } from '@kubernetes/client-node';
import type { Cluster } from '../../api/index.js';
import { Backoff } from '../../runtime/backoff.js';
import { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import type { Informer } from '../../runtime/kube/informer.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import type { KubeObject } from '../../runtime/kube/list-watch.js';
import { RESOURCE, type Resource } from '../../runtime/kube/resource.js';
import type { Logger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';
import { FIELD_MANAGER } from '../kube/seed-writes.js';
import {
  clusterEventObject,
  clusterOfShoot,
  type RunningController,
  type SeedContext,
  type ShootContext,
  type ShootControllerStarter,
  type ShootRegistry,
} from './context.js';
import { shootCredentials } from './seed-informers.js';
import { ShootAccess } from './shoot-access.js';

interface Running {
  readonly context: ShootContext;
  readonly abort: AbortController;
  readonly http: KubeHttp;
  readonly controllers: RunningController[];
  /** The controllers of the current leadership term. */
  readonly leaderControllers: RunningController[];
  readonly access: ShootAccess;
  cluster: Cluster;
}

/**
 * What the shoot caches keep of an object: Secrets without data (the shoot's secrets are read for
 * their labels and annotations only, never their content); Nodes with their metadata, spec and
 * status conditions only (images, addresses, capacity and node info are read by no controller and
 * make up most of a Node).
 */
export function shootCacheTransform(resource: Resource, object: KubeObject): KubeObject {
  if (resource === RESOURCE.secret) {
    const { data, stringData, ...rest } = object as KubeObject & { data?: unknown; stringData?: unknown };
    void data;
    void stringData;
    return rest;
  }
  if (resource === RESOURCE.node) {
    const node = object as KubeObject & { spec?: unknown; status?: { conditions?: unknown } };
    return {
      apiVersion: node.apiVersion,
      kind: node.kind,
      metadata: node.metadata,
      ...(node.spec ? { spec: node.spec } : {}),
      ...(node.status?.conditions ? { status: { conditions: node.status.conditions } } : {}),
    } as KubeObject;
  }
  return object;
}

/**
 * The context of one shoot: its API client and informer cache on `http`, the cache running until
 * `signal` aborts.
 */
export function shootContext(o: {
  readonly namespace: string;
  readonly cluster: () => Cluster;
  readonly http: KubeHttp;
  readonly log: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly signal: AbortSignal;
}): ShootContext {
  const cache = new ClusterCache({
    name: o.namespace,
    http: o.http,
    log: o.log,
    metrics: o.metrics,
    transform: shootCacheTransform,
  });
  cache.start(o.signal);
  return {
    namespace: o.namespace,
    cluster: o.cluster,
    client: new KubeClient(o.http, { fieldManager: FIELD_MANAGER }),
    cache,
    eventObject: clusterEventObject(o.namespace),
    log: o.log,
    signal: o.signal,
  };
}

export class Shoots implements ShootRegistry {
  private readonly running = new Map<string, Running>();
  private readonly starting = new Map<string, { abort: AbortController; wake: () => void }>();
  private readonly stopping = new Set<Promise<void>>();
  private readonly internal: Informer<V1Secret>;
  private readonly started: {
    readonly listener: (namespace: string) => void;
    readonly until?: AbortSignal;
  }[] = [];
  private leader:
    | { readonly seed: SeedContext; readonly starters: readonly ShootControllerStarter[] }
    | undefined;
  private readonly leaderStopping = new Set<Promise<void>>();

  /** `starters` run for every shoot while it runs; `lead` adds the leader's for a term. */
  constructor(
    private readonly seed: SeedContext,
    private readonly starters: readonly ShootControllerStarter[],
  ) {
    this.internal = shootCredentials(seed.cache);
  }

  get(namespace: string): ShootContext | undefined {
    return this.running.get(namespace)?.context;
  }

  /**
   * Calls `listener` with the namespace of every shoot that runs now (a controller starting late
   * must not miss them) or starts from now on, until `until` aborts.
   */
  onStarted(listener: (namespace: string) => void, until?: AbortSignal): void {
    if (until?.aborted) return;
    const entry = { listener, until };
    this.started.push(entry);
    until?.addEventListener(
      'abort',
      () => {
        const i = this.started.indexOf(entry);
        if (i >= 0) this.started.splice(i, 1);
      },
      { once: true },
    );
    for (const namespace of this.running.keys()) listener(namespace);
  }

  /**
   * Starts `starters` for every running shoot and every shoot that starts while `leader.signal`
   * has not aborted; they stop when it aborts (the shoots and their caches run on).
   */
  lead(leader: SeedContext, starters: readonly ShootControllerStarter[]): void {
    if (leader.signal.aborted) return;
    const term = { seed: leader, starters };
    this.leader = term;
    leader.signal.addEventListener(
      'abort',
      () => {
        if (this.leader === term) this.leader = undefined;
      },
      { once: true },
    );
    for (const entry of this.running.values()) this.startLeaderControllers(entry);
  }

  /** Resolves once the controllers of the ended leadership term stopped. */
  async leaderStopped(): Promise<void> {
    await Promise.allSettled([
      ...[...this.running.values()].flatMap((r) => r.leaderControllers.map((c) => c.stopped())),
      ...this.leaderStopping,
    ]);
  }

  private startLeaderControllers(entry: Running): void {
    const term = this.leader;
    if (!term || term.seed.signal.aborted || entry.abort.signal.aborted) return;
    const signal = AbortSignal.any([entry.abort.signal, term.seed.signal]);
    setMaxListeners(200, signal);
    const context: ShootContext = { ...entry.context, signal };
    const controllers = term.starters.map((start) => start(context, term.seed));
    entry.leaderControllers.push(...controllers);
    const done = (async () => {
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await Promise.allSettled(controllers.map((c) => c.stopped()));
      for (const c of controllers) {
        const i = entry.leaderControllers.indexOf(c);
        if (i >= 0) entry.leaderControllers.splice(i, 1);
      }
    })();
    this.leaderStopping.add(done);
    void done.finally(() => this.leaderStopping.delete(done));
  }

  /** Follows the Clusters and the shoots' credentials until the seed's signal aborts. */
  start(): void {
    const sync = (o: { metadata?: { name?: string } }) => this.sync(o.metadata?.name ?? '');
    this.seed.clusters.subscribe({ add: sync, update: (_, c) => sync(c), delete: sync });
    const credentials = (s: V1Secret) => {
      const namespace = s.metadata?.namespace ?? '';
      this.starting.get(namespace)?.wake();
      const running = this.running.get(namespace);
      if (running) void this.followServer(namespace, running);
    };
    this.internal.subscribe({ add: credentials, update: (_, s) => credentials(s) });
  }

  /** A shoot whose credentials now name another server starts again (KubeHttp serves one server). */
  private async followServer(namespace: string, running: Running): Promise<void> {
    const server = await running.access.current().then(
      (c) => c.server,
      () => undefined,
    );
    if (server === undefined || server === running.http.server || this.running.get(namespace) !== running)
      return;
    this.seed.log.info({ shoot: namespace, server }, 'The shoot moved to another API server address');
    this.stop(namespace);
    this.sync(namespace);
  }

  /** Resolves once every shoot stopped after the seed's signal aborted. */
  async stopped(): Promise<void> {
    const { signal } = this.seed;
    if (!signal.aborted) await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
    for (const namespace of [...this.running.keys()]) this.stop(namespace);
    await Promise.allSettled([...this.stopping]);
  }

  /** Starts, updates or stops one shoot to match its Cluster. */
  private sync(namespace: string): void {
    const cluster = clusterOfShoot(this.seed.config, this.seed.clusters.get(namespace));
    if (!cluster) {
      this.stop(namespace);
      return;
    }
    const running = this.running.get(namespace);
    if (running) {
      running.cluster = cluster;
      return;
    }
    if (this.starting.has(namespace) || this.seed.signal.aborted) return;
    const abort = new AbortController();
    let wake = () => undefined as void;
    const attempt = { abort, wake: () => wake() };
    this.starting.set(namespace, attempt);
    const onAbort = () => abort.abort();
    this.seed.signal.addEventListener('abort', onAbort, { once: true });
    void this.connect(namespace, abort.signal, (w) => (wake = w)).finally(() => {
      this.seed.signal.removeEventListener('abort', onAbort);
      if (this.starting.get(namespace) === attempt) this.starting.delete(namespace);
    });
  }

  /** Tries until the shoot's credentials decode, then starts it; `signal` cancels the attempt. */
  private async connect(namespace: string, signal: AbortSignal, onWake: (wake: () => void) => void) {
    const backoff = new Backoff({ baseMs: 1_000, maxMs: 60_000 });
    const log = this.seed.log.child({ shoot: namespace });
    while (!signal.aborted) {
      const cluster = clusterOfShoot(this.seed.config, this.seed.clusters.get(namespace));
      if (!cluster) return;
      const access = new ShootAccess({ namespace, internal: this.internal, seed: this.seed.client });
      try {
        await access.current();
        if (signal.aborted) return;
        this.run(namespace, cluster, access, log);
        return;
      } catch (e) {
        const wait = backoff.next();
        log.info({ err: e, retryInMs: wait }, 'Shoot not reachable yet');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          timer.unref();
          onWake(() => {
            clearTimeout(timer);
            resolve();
          });
          signal.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    }
  }

  private run(namespace: string, cluster: Cluster, access: ShootAccess, log: Logger): void {
    const abort = new AbortController();
    setMaxListeners(200, abort.signal);
    const onStop = () => abort.abort();
    this.seed.signal.addEventListener('abort', onStop, { once: true });
    abort.signal.addEventListener('abort', () => this.seed.signal.removeEventListener('abort', onStop), {
      once: true,
    });
    const http = new KubeHttp(access);
    const entry: Running = {
      context: shootContext({
        namespace,
        cluster: () => entry.cluster,
        http,
        log,
        metrics: this.seed.metrics,
        signal: abort.signal,
      }),
      abort,
      http,
      controllers: [],
      leaderControllers: [],
      access,
      cluster,
    };
    for (const start of this.starters) entry.controllers.push(start(entry.context, this.seed));
    this.running.set(namespace, entry);
    this.startLeaderControllers(entry);
    log.info('Started the shoot: its caches and per-shoot controllers');
    for (const { listener } of this.started) listener(namespace);
  }

  private stop(namespace: string): void {
    this.starting.get(namespace)?.abort.abort();
    this.starting.delete(namespace);
    const running = this.running.get(namespace);
    if (!running) return;
    this.running.delete(namespace);
    running.abort.abort();
    const done = (async () => {
      await Promise.allSettled([
        ...running.controllers.map((c) => c.stopped()),
        ...running.leaderControllers.map((c) => c.stopped()),
        running.context.cache.stopped(),
      ]);
      await running.http.close();
    })();
    this.stopping.add(done);
    void done.finally(() => this.stopping.delete(done));
    this.seed.log.info({ shoot: namespace }, 'Stopped the shoot: its caches and per-shoot controllers');
  }
}
