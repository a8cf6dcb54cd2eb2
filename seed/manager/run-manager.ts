/**
 * The controller-manager process: it serves /healthz, /readyz and /metrics at once, campaigns for
 * leadership (when enabled), and while it leads runs the controllers it is given (controllers/
 * index.ts names them) over the caches of observation.ts. What serves requests runs on every
 * replica, leading or not, and keeps the caches running for the whole process. Losing leadership
 * stops the controllers, the signal everything; `stopped` resolves when all have finished.
 */
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { EventRecorder } from '../../runtime/events.js';
import { pingCheck, type RunningServer, serveEndpoints } from '../../runtime/http-endpoints.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import type { ClusterAccess } from '../../runtime/kube/rest-config.js';
import type { WatchHealth } from '../../runtime/kube/watch-health.js';
import { LeaderElector } from '../../runtime/leader-election.js';
import type { Logger } from '../../runtime/logging.js';
import type { ControllerManagerConfiguration } from './config.js';
import { EVENT_COMPONENT, type SeedControllerStarter, type ShootControllerStarter } from './context.js';
import { observe } from './observation.js';

export interface ManagerOptions {
  readonly config: ControllerManagerConfiguration;
  readonly seed: ClusterAccess;
  readonly log: Logger;
  /** Overrides the configured ports (tests, the demo: 0 picks a free one). */
  readonly healthPort?: number;
  readonly metricsPort?: number;
  /** Leader election identity; default `<hostname>_<pid>`. */
  readonly identity?: string;
}

/** The controllers to run while this process leads, and what runs on every replica. */
export interface ControllerSet {
  readonly seed: readonly SeedControllerStarter[];
  /** Started for each selected shoot. */
  readonly shoot: readonly ShootControllerStarter[];
  /**
   * What serves requests and so runs on every replica, leading or not, over the same caches (which
   * then run on every replica too); the leader's controllers are started over them.
   */
  readonly everyReplica?: {
    readonly seed?: readonly SeedControllerStarter[];
    readonly shoot?: readonly ShootControllerStarter[];
  };
}

export interface ControllerManagerOptions extends ManagerOptions {
  readonly controllers: ControllerSet;
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
  const everyReplica = o.controllers.everyReplica;
  // with pieces that serve on every replica the caches run for the whole process, else per term
  const observation =
    everyReplica?.seed?.length || everyReplica?.shoot?.length
      ? observe(o, registry, recorder, root.signal)
      : undefined;
  const startControllers = (signal: AbortSignal) => {
    const watched = observation ?? observe(o, registry, recorder, signal);
    const running = watched.lead(signal);
    synced = running.synced;
    seedWatches = watched.watches;
    controllersDone = Promise.allSettled([running.stopped, observation ? undefined : watched.stopped]);
    return controllersDone;
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
        // a standby replica is ready when what it serves is (nothing but probes, or the caches
        // it answers from); it waits for the lease
        check: async () => {
          const ready = leading ? synced() : observation?.synced();
          if (!ready) return;
          const timeout = new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error('caches not synced')), 1_000).unref(),
          );
          await Promise.race([ready, timeout]);
        },
      },
      {
        // the seed's watches only: a shoot whose API server is away must not make the manager unready
        name: 'watches',
        check: () => (observation?.watches ?? (leading ? seedWatches : undefined))?.check.check(),
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
        void Promise.allSettled([elector, controllersDone, observation?.stopped])
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
