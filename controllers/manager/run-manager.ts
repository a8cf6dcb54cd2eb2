/**
 * `gardener-osc controller-manager`: one process for the seed-side controllers. It serves
 * /healthz, /readyz and /metrics at once, campaigns for leadership (when enabled), and while it
 * leads runs the operatingsystemconfig, migration, token-requestor (direct mode) and os-local
 * controllers over the seed, plus node-delay and token-labels per selected shoot. Losing
 * leadership or the signal stops every controller; `stopped` resolves when all have finished.
 */
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import { CoreV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { CLUSTER_API_VERSION, type Cluster, decodeCluster } from '../../api/index.js';
import { EventRecorder } from '../../runtime/events.js';
import { pingCheck, type RunningServer, serveEndpoints } from '../../runtime/http-endpoints.js';
import { Informer } from '../../runtime/kube/informer.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { type WatchHealth, watchHealthOf } from '../../runtime/kube/watch-health.js';
import { LeaderElector } from '../../runtime/leader-election.js';
import type { Logger } from '../../runtime/logging.js';
import { runtimeMetrics } from '../../runtime/metrics.js';
import { startMigrationController } from '../migration/add.js';
import { migrationMetrics } from '../migration/metrics.js';
import { startOscController } from '../operatingsystemconfig/add.js';
import { oscControllerMetrics } from '../operatingsystemconfig/metrics.js';
import { startOsLocalController } from '../os-local/add.js';
import { startTokenRequestor } from '../token-requestor/add.js';
import { type ControllerManagerConfiguration, clusterSelected } from './config.js';
import { directShootApplier } from './direct-shoot-applier.js';
import { KeyedMutex } from './keyed-mutex.js';
import { seedRenderValues } from './seed-render-values.js';
import { ShootClients } from './shoot-clients.js';
import { ShootControllers } from './shoot-controllers.js';

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

export interface RunningManager {
  readonly health: RunningServer;
  readonly metrics: RunningServer;
  readonly registry: Registry;
  /** Resolves once every controller stopped after `stop()`. */
  readonly stopped: Promise<void>;
  stop(): void;
}

export async function runControllerManager(o: ManagerOptions): Promise<RunningManager> {
  const { config, seed, log } = o;
  const root = new AbortController();
  setMaxListeners(200, root.signal);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const eventsHttp = new KubeHttp(seed);
  const recorder = new EventRecorder({
    http: eventsHttp,
    component: 'gardener-osc-controller-manager',
    log,
  });

  let leading = !config.leaderElection.enabled;
  let synced: () => Promise<void> = async () => undefined;
  let seedWatches: WatchHealth | undefined;
  let controllersDone: Promise<unknown> = Promise.resolve();
  const startControllers = (signal: AbortSignal) => {
    const running = startSeedControllers({ ...o, registry, recorder, signal });
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

interface SeedControllerOptions extends ManagerOptions {
  readonly registry: Registry;
  readonly recorder: EventRecorder;
  readonly signal: AbortSignal;
}

/** Starts every seed controller under one signal (leadership); returns when they are synced/stopped. */
function startSeedControllers(o: SeedControllerOptions): {
  synced: () => Promise<void>;
  stopped: Promise<unknown>;
  watches: WatchHealth;
} {
  const { config, seed, log, registry, recorder, signal } = o;
  // every informer, worker and per-shoot controller listens on the leadership signal
  setMaxListeners(500, signal);
  const metrics = runtimeMetrics(registry);
  const http = new KubeHttp(seed);
  const seedCore = seed.makeApiClient(CoreV1Api);
  const clusters = new Informer<KubernetesObject>({
    http,
    path: `/apis/${CLUSTER_API_VERSION}/clusters`,
    log,
    metrics,
  });
  const shoots = new ShootClients(seedCore, log);
  const selectedCluster = (name: string): Cluster | undefined => {
    const live = clusters.get(name);
    if (!live || !clusterSelected(config, live.metadata?.labels) || live.metadata?.deletionTimestamp)
      return undefined;
    const decoded = decodeCluster(live);
    return decoded.ok ? decoded.value : undefined;
  };
  const mutex = new KeyedMutex();
  const direct = config.applyMode === 'direct';
  const applier = direct ? directShootApplier() : undefined;

  const osc = startOscController(
    {
      http,
      clusters,
      mutex,
      seed,
      config,
      renderValues: (namespace, cluster) => seedRenderValues(seedCore, namespace, cluster, config),
      shootKubeConfig: (namespace) => shoots.kubeConfig(namespace),
      applier,
      recorder,
      metrics: oscControllerMetrics(registry),
      runtimeMetrics: metrics,
      log,
    },
    signal,
  );
  const migration = startMigrationController(
    {
      http,
      clusters,
      mutex,
      seed,
      cluster: selectedCluster,
      shootKubeConfig: (namespace) => shoots.kubeConfig(namespace),
      applier,
      checkIntervalMs: config.controllers.migration.checkInterval,
      recorder,
      metrics: migrationMetrics(registry),
      runtimeMetrics: metrics,
      log,
    },
    signal,
  );
  const waits: (() => Promise<void>)[] = [() => clusters.waitForSync(signal), () => osc.synced()];
  const stops: Promise<unknown>[] = [osc.controller.stopped(), migration.stopped(), clusters.stopped()];

  if (direct) {
    const tokens = startTokenRequestor(
      {
        http,
        seed,
        shootKubeConfig: async (namespace) =>
          selectedCluster(namespace) ? shoots.kubeConfig(namespace).catch(() => undefined) : undefined,
        log,
        metrics,
        recorder,
      },
      signal,
    );
    waits.push(() => tokens.synced());
    stops.push(tokens.stopped());
  }
  if (config.controllers.osLocal.enabled) {
    for (const type of config.controllers.osLocal.types) {
      const osLocal = startOsLocalController(
        { http, kubeConfig: seed, type, log, metrics, recorder },
        signal,
      );
      waits.push(() => osLocal.synced());
      stops.push(osLocal.stopped());
    }
  }
  const perShoot = new ShootControllers({ config, seedHttp: http, shoots, recorder, metrics, registry, log });
  clusters.on({
    add: (c) => perShoot.sync(c.metadata?.name ?? '', selectedCluster, signal),
    update: (_, c) => perShoot.sync(c.metadata?.name ?? '', selectedCluster, signal),
    delete: (c) => perShoot.sync(c.metadata?.name ?? '', () => undefined, signal),
  });
  clusters.start(signal);
  stops.push(perShoot.stopped(signal));
  signal.addEventListener('abort', () => void http.close(), { once: true });
  return {
    synced: async () => {
      await Promise.all(waits.map((w) => w()));
    },
    stopped: Promise.allSettled(stops),
    watches: watchHealthOf(http),
  };
}
