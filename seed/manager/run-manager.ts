/**
 * The controller-manager process: it serves /healthz, /readyz and /metrics at once, campaigns for
 * leadership (when enabled), and while it leads runs the controllers it is given (controllers/
 * index.ts names them). Losing leadership or the signal stops every controller; `stopped`
 * resolves when all have finished.
 */
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { EventRecorder } from '../../runtime/events.js';
import { pingCheck, type RunningServer, serveEndpoints } from '../../runtime/http-endpoints.js';
import { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type WatchHealth, watchHealthOf } from '../../runtime/kube/watch-health.js';
import { LeaderElector } from '../../runtime/leader-election.js';
import type { Logger } from '../../runtime/logging.js';
import { runtimeMetrics } from '../../runtime/metrics.js';
import { FIELD_MANAGER } from '../kube/seed-writes.js';
import type { ControllerManagerConfiguration } from './config.js';
import {
  type ClusterObject,
  EVENT_COMPONENT,
  type SeedContext,
  type SeedControllerStarter,
  type ShootControllerStarter,
} from './context.js';
import { KeyedMutex } from './keyed-mutex.js';
import { Shoots } from './shoots.js';

export interface ManagerOptions {
  readonly config: ControllerManagerConfiguration;
  readonly seed: KubeConfig;
  readonly log: Logger;
  /** Overrides the configured ports (tests, the demo: 0 picks a free one). */
  readonly healthPort?: number;
  readonly metricsPort?: number;
  /** Leader election identity; default `<hostname>_<pid>`. */
  readonly identity?: string;
}

/** The controllers to run while this process leads. */
export interface ControllerSet {
  readonly seed: readonly SeedControllerStarter[];
  /** Started for each selected shoot. */
  readonly shoot: readonly ShootControllerStarter[];
}

export interface ControllerManagerOptions extends ManagerOptions {
  readonly controllers: ControllerSet;
}

interface RunningControllers {
  /** Resolves once the seed cache and every controller's caches are filled (readiness). */
  synced(): Promise<void>;
  /** Resolves once every controller, shoot and watch stopped after the signal aborted. */
  readonly stopped: Promise<unknown>;
  /** The seed's watches, for readiness. */
  readonly watches: WatchHealth;
}

export interface RunningManager {
  readonly health: RunningServer;
  readonly metrics: RunningServer;
  readonly registry: Registry;
  /** Resolves once every controller stopped after `stop()`. */
  readonly stopped: Promise<void>;
  stop(): void;
}

export async function runManager(o: ControllerManagerOptions): Promise<RunningManager> {
  const { config, seed, log } = o;
  const root = new AbortController();
  setMaxListeners(200, root.signal);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const eventsHttp = new KubeHttp(seed);
  const recorder = new EventRecorder({
    http: eventsHttp,
    component: EVENT_COMPONENT,
    log,
  });

  let leading = !config.leaderElection.enabled;
  let synced: () => Promise<void> = async () => undefined;
  let seedWatches: WatchHealth | undefined;
  let controllersDone: Promise<unknown> = Promise.resolve();
  const startControllers = (signal: AbortSignal) => {
    const running = lead(o, registry, recorder, signal);
    synced = running.synced;
    seedWatches = running.watches;
    controllersDone = running.stopped;
    return running.stopped;
  };

  let elector: Promise<void> = Promise.resolve();
  if (config.leaderElection.enabled) {
    const le = new LeaderElector({
      client: new KubeClient(eventsHttp),
      namespace: config.leaderElection.namespace,
      name: config.leaderElection.name,
      identity: o.identity ?? `${hostname()}_${process.pid}`,
      leaseDurationMs: config.leaderElection.leaseDuration,
      renewDeadlineMs: config.leaderElection.renewDeadline,
      retryPeriodMs: config.leaderElection.retryPeriod,
      log,
      onStartedLeading: async (signal) => {
        leading = true;
        await startControllers(signal);
      },
      onStoppedLeading: () => {
        leading = false;
        log.info('Lost leadership, controllers stopped');
      },
    });
    elector = le.run(root.signal);
  } else {
    startControllers(root.signal);
  }

  const health = await serveEndpoints({
    host: config.server.healthProbes.bindAddress || undefined,
    port: o.healthPort ?? config.server.healthProbes.port,
    healthz: [pingCheck],
    readyz: [
      {
        name: 'informer-sync',
        // a standby replica is ready: it serves probes and waits for the lease
        check: async () => {
          if (!leading) return;
          const timeout = new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('caches not synced')), 1_000).unref(),
          );
          await Promise.race([synced(), timeout]);
        },
      },
      {
        // the seed's watches only: a shoot whose API server is away must not make the manager unready
        name: 'watches',
        check: () => (leading ? seedWatches?.check.check() : undefined),
      },
    ],
  });
  const metricsServer = await serveEndpoints({
    host: config.server.metrics.bindAddress || undefined,
    port: o.metricsPort ?? config.server.metrics.port,
    registry,
  });
  log.info(
    { health: health.url, metrics: metricsServer.url, applyMode: config.applyMode },
    'Started gardener-osc controller-manager',
  );
  const stopped = new Promise<void>((resolve) => {
    root.signal.addEventListener(
      'abort',
      () => {
        void Promise.allSettled([elector, controllersDone])
          .then(() => Promise.allSettled([health.close(), metricsServer.close(), eventsHttp.close()]))
          .then(() => resolve());
      },
      { once: true },
    );
  });
  return {
    health,
    metrics: metricsServer,
    registry,
    stopped,
    stop: () => root.abort(new Error('stopped')),
  };
}

/** While leading: the seed's client and cache, the shoots, and every controller, under `signal`. */
function lead(
  o: ControllerManagerOptions,
  registry: Registry,
  recorder: EventRecorder,
  signal: AbortSignal,
): RunningControllers {
  // every informer, worker and shoot listens on the leadership signal
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
  shoots = new Shoots(seed, o.controllers.shoot);
  const controllers = o.controllers.seed.map((start) => start(seed));
  shoots.start();
  cache.start(signal);
  const aborted = new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  return {
    synced: async () => {
      await cache.waitForSync(signal);
      await Promise.all(controllers.map((c) => c.synced()));
    },
    stopped: (async () => {
      await aborted;
      await Promise.allSettled([...controllers.map((c) => c.stopped()), shoots.stopped(), cache.stopped()]);
      await http.close();
    })(),
    watches: watchHealthOf(http),
  };
}
