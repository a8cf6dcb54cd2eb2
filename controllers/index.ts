/**
 * The seed controllers of `gardener-osc controller-manager`, as its configuration selects them:
 * operatingsystemconfig, migration, token-requestor (direct mode) and os-local over the seed;
 * node-delay and token-labels per selected shoot. seed/manager runs them while it leads.
 */
import { setMaxListeners } from 'node:events';
import { CoreV1Api, type KubernetesObject } from '@kubernetes/client-node';
import { CLUSTER_API_VERSION, type Cluster, decodeCluster } from '../api/index.js';
import { Informer } from '../runtime/kube/informer.js';
import { KubeHttp } from '../runtime/kube/kube-http.js';
import { watchHealthOf } from '../runtime/kube/watch-health.js';
import { runtimeMetrics } from '../runtime/metrics.js';
import { directShootApplier } from '../seed/direct-apply/shoot-applier.js';
import { clusterSelected } from '../seed/manager/config.js';
import { KeyedMutex } from '../seed/manager/keyed-mutex.js';
import {
  type LeaderContext,
  type ManagerOptions,
  type RunningControllers,
  type RunningManager,
  runManager,
} from '../seed/manager/run-manager.js';
import { seedRenderValues } from '../seed/manager/seed-render-values.js';
import { ShootClients } from '../seed/manager/shoot-clients.js';
import { type ShootControllerStarter, ShootControllers } from '../seed/manager/shoot-controllers.js';
import { startMigrationController } from './migration/add.js';
import { migrationMetrics } from './migration/metrics.js';
import { startNodeDelayController } from './node-delay/add.js';
import { startOscController } from './operatingsystemconfig/add.js';
import { oscControllerMetrics } from './operatingsystemconfig/metrics.js';
import { startOsLocalController } from './os-local/add.js';
import { startTokenLabelsController } from './token-labels/add.js';
import { startTokenRequestor } from './token-requestor/add.js';

/** Runs the controller-manager process with every seed controller. */
export function runControllerManager(o: ManagerOptions): Promise<RunningManager> {
  return runManager({ ...o, start: startControllers });
}

/** Starts every seed controller under one signal (leadership). */
function startControllers(o: LeaderContext): RunningControllers {
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
  const { nodeDelay, tokenLabels } = config.controllers;
  const starters: ShootControllerStarter[] = [];
  if (nodeDelay.enabled)
    starters.push((ctx, _seed, shootSignal) =>
      startNodeDelayController(ctx, { minDelay: nodeDelay.minDelay * 1e6 }, shootSignal),
    );
  if (tokenLabels.enabled)
    starters.push((ctx, seedAccess, shootSignal) =>
      startTokenLabelsController(ctx, { seedHttp: seedAccess.http }, shootSignal),
    );
  const perShoot = new ShootControllers({
    starters,
    seedHttp: http,
    shoots,
    recorder,
    metrics,
    registry,
    log,
  });
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
