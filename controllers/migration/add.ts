/**
 * Wires the migration controller: every Cluster change and every change of a shoot's migration
 * state enqueues the shoot; while nodes are still being migrated the reconciler requeues itself at
 * the configured interval.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Controller } from '../../runtime/controller.js';
import { Informer } from '../../runtime/kube/informer.js';
import type { KubeHttp } from '../../runtime/kube/kube-http.js';
import type { Logger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';
import type { KeyedMutex } from '../../seed/manager/keyed-mutex.js';
import {
  MANAGED_BY_LABEL,
  MANAGED_BY_VALUE,
  MIGRATION_STATE_NAME,
} from '../../seed/migration-state/state.js';
import { MigrationReconciler, type MigrationReconcilerOptions } from './reconciler.js';

export interface MigrationControllerOptions extends MigrationReconcilerOptions {
  readonly http: KubeHttp;
  readonly clusters: Informer<KubernetesObject>;
  readonly mutex: KeyedMutex;
  readonly runtimeMetrics: RuntimeMetrics;
  readonly log: Logger;
}

export function startMigrationController(o: MigrationControllerOptions, signal: AbortSignal): Controller {
  const reconciler = new MigrationReconciler(o);
  const controller = new Controller({
    name: 'migration',
    log: o.log,
    metrics: o.runtimeMetrics,
    timeoutMs: 3 * 60_000,
    reconcile: (namespace, ctx) => o.mutex.run(namespace, () => reconciler.reconcile(namespace, ctx)),
  });
  const enqueue = (c: KubernetesObject) => controller.queue.add(c.metadata?.name ?? '');
  o.clusters.on({ add: enqueue, update: (_, c) => enqueue(c) });
  // the OperatingSystemConfig controller starts a migration by writing its state: react at once
  const states = new Informer<KubernetesObject>({
    http: o.http,
    path: '/api/v1/configmaps',
    labelSelector: `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE}`,
    log: o.log,
    metrics: o.runtimeMetrics,
  });
  states.on({
    add: (cm) =>
      cm.metadata?.name === MIGRATION_STATE_NAME && controller.queue.add(cm.metadata?.namespace ?? ''),
    update: (_, cm) =>
      cm.metadata?.name === MIGRATION_STATE_NAME && controller.queue.add(cm.metadata?.namespace ?? ''),
  });
  states.start(signal);
  controller.start(signal);
  return controller;
}
