/**
 * Wires the seed OperatingSystemConfig controller: every Cluster change enqueues its shoot
 * namespace; every OSC change (its OS extension reporting, say) enqueues the namespace it lives
 * in, so waiting for an extension costs no polling delay. Reconciles of one shoot are serialised
 * with the migration controller's through the shared per-shoot mutex.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { OSC_API_VERSION } from '../../api/index.js';
import { Controller } from '../../runtime/controller.js';
import { Informer } from '../../runtime/kube/informer.js';
import type { KubeHttp } from '../../runtime/kube/kube-http.js';
import type { Logger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';
import type { KeyedMutex } from '../../seed/manager/keyed-mutex.js';
import { OscReconciler, type OscReconcilerOptions } from './reconciler.js';

export interface OscControllerOptions extends Omit<OscReconcilerOptions, 'cluster'> {
  readonly http: KubeHttp;
  readonly clusters: Informer<KubernetesObject>;
  readonly mutex: KeyedMutex;
  readonly runtimeMetrics: RuntimeMetrics;
  readonly log: Logger;
}

export interface RunningOscController {
  readonly controller: Controller;
  readonly oscs: Informer<KubernetesObject>;
  synced(): Promise<void>;
}

export function startOscController(o: OscControllerOptions, signal: AbortSignal): RunningOscController {
  const reconciler = new OscReconciler({ ...o, cluster: (name) => o.clusters.get(name) });
  const controller = new Controller({
    name: 'operatingsystemconfig',
    log: o.log,
    metrics: o.runtimeMetrics,
    concurrency: o.config.controllers.operatingSystemConfig.concurrentSyncs,
    timeoutMs: 3 * 60_000,
    reconcile: (namespace, ctx) => o.mutex.run(namespace, () => reconciler.reconcile(namespace, ctx)),
  });
  const enqueueCluster = (c: KubernetesObject) => controller.queue.add(c.metadata?.name ?? '');
  o.clusters.on({ add: enqueueCluster, update: (_, c) => enqueueCluster(c), delete: enqueueCluster });
  const oscs = new Informer<KubernetesObject>({
    http: o.http,
    path: `/apis/${OSC_API_VERSION}/operatingsystemconfigs`,
    log: o.log,
    metrics: o.runtimeMetrics,
  });
  const enqueueOsc = (osc: KubernetesObject) => {
    const namespace = osc.metadata?.namespace ?? '';
    if (o.clusters.get(namespace)) controller.queue.add(namespace);
  };
  oscs.on({ update: (_, osc) => enqueueOsc(osc), delete: enqueueOsc });
  oscs.start(signal);
  controller.start(signal);
  return { controller, oscs, synced: () => oscs.waitForSync(signal) };
}
