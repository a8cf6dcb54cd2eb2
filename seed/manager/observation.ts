/**
 * What the manager watches: the seed's client and informer cache, the Clusters, and the selected
 * shoots with their clients and caches. It runs while the process leads; or, when some pieces
 * serve requests on every replica (the node agent authorizer), for the whole process: standby
 * replicas then hold the same caches and answer from them, and leadership only starts and stops
 * the controllers over it (as controller-runtime starts caches and webhooks on every replica).
 */
import { setMaxListeners } from 'node:events';
import type { Registry } from 'prom-client';
import type { ClusterObject } from '../../api/index.js';
import type { EventRecorder } from '../../runtime/events.js';
import { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type WatchHealth, watchHealthOf } from '../../runtime/kube/watch-health.js';
import { runtimeMetrics } from '../../runtime/metrics.js';
import { FIELD_MANAGER } from '../kube/seed-writes.js';
import type { SeedContext } from './context.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { ControllerManagerOptions } from './run-manager.js';
import { Shoots } from './shoots.js';

/** The controllers of one leadership term. */
export interface LeaderControllers {
  /** Resolves once the caches and every controller's caches are filled (readiness). */
  synced(): Promise<void>;
  /** Resolves once every controller stopped after the leadership signal aborted. */
  readonly stopped: Promise<unknown>;
}

export interface Observation {
  readonly seed: SeedContext;
  /** Resolves once the seed cache and what runs on every replica are filled. */
  synced(): Promise<void>;
  /** Starts the leader's controllers over the caches; they stop when `signal` aborts. */
  lead(signal: AbortSignal): LeaderControllers;
  /** Resolves once every shoot, cache and watch stopped after the observation's signal aborted. */
  readonly stopped: Promise<unknown>;
  /** The seed's watches, for readiness. */
  readonly watches: WatchHealth;
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

export function observe(
  o: ControllerManagerOptions,
  registry: Registry,
  recorder: EventRecorder,
  signal: AbortSignal,
): Observation {
  // every informer, worker and shoot listens on this signal
  setMaxListeners(500, signal);
  const { config, log } = o;
  const metrics = runtimeMetrics(registry);
  const http = new KubeHttp(o.seed);
  const cache = new ClusterCache({ name: 'seed', http, log, metrics });
  let shoots: Shoots | undefined;
  const seed: SeedContext = {
    config,
    client: new KubeClient(http, { fieldManager: FIELD_MANAGER }),
    cache,
    clusters: cache.informer<ClusterObject>({ resource: RESOURCE.cluster }),
    shoots: {
      get: (namespace) => shoots?.get(namespace),
      onStarted: (listener) => shoots?.onStarted(listener),
    },
    mutex: new KeyedMutex(),
    recorder,
    log,
    metrics,
    registry,
    signal,
  };
  const everyReplica = o.controllers.everyReplica;
  const running = new Shoots(seed, everyReplica?.shoot ?? []);
  shoots = running;
  const always = (everyReplica?.seed ?? []).map((start) => start(seed));
  running.start();
  cache.start(signal);
  return {
    seed,
    synced: async () => {
      await cache.waitForSync(signal);
      await Promise.all(always.map((c) => c.synced()));
    },
    lead(leading: AbortSignal): LeaderControllers {
      setMaxListeners(500, leading);
      const leader: SeedContext = {
        ...seed,
        signal: leading,
        shoots: {
          get: (namespace) => running.get(namespace),
          onStarted: (listener) => running.onStarted(listener, leading),
        },
      };
      const controllers = o.controllers.seed.map((start) => start(leader));
      running.lead(leader, o.controllers.shoot);
      return {
        synced: async () => {
          await cache.waitForSync(leading);
          await Promise.all([...always, ...controllers].map((c) => c.synced()));
        },
        stopped: (async () => {
          await untilAborted(leading);
          await Promise.allSettled([...controllers.map((c) => c.stopped()), running.leaderStopped()]);
        })(),
      };
    },
    stopped: (async () => {
      await untilAborted(signal);
      await Promise.allSettled([...always.map((c) => c.stopped()), running.stopped(), cache.stopped()]);
      await http.close();
    })(),
    watches: watchHealthOf(http),
  };
}
