/**
 * Wires the migration controller: every Cluster change and every change of a shoot's recorded
 * phase (seed cache) enqueues the shoot. While a shoot migrates, its agents' Leases are watched in
 * its shoot cache (released once it no longer migrates), a node reporting a new checksum enqueues
 * it at once, and it is checked again at the configured interval (a Lease renewed does not
 * enqueue: there are many, and a node's first report is its checksum).
 */

import type { NodeObject } from '../../api/index.js';
import { ANNOTATION, FEATURE_GATE_USE_GARDENER_NODE_AGENT } from '../../api/index.js';
import { whenAborted } from '../../runtime/abort.js';
import { Controller } from '../../runtime/controller.js';
import type { AcquiredInformer } from '../../runtime/kube/cluster-cache.js';
import type { WireLease } from '../../runtime/kube/lease.js';
import { directShootApplier } from '../../seed/direct-apply/shoot-applier.js';
import {
  type RunningController,
  type SeedContext,
  type ShootContext,
  selectedCluster,
} from '../../seed/manager/context.js';
import { migrationStates } from '../../seed/manager/seed-informers.js';
import { MIGRATION_STATE_NAME } from '../../seed/migration-state/state.js';
import { agentLeases, oscSecrets, shootNodes } from '../../seed/shoot-nodes/shoot-informers.js';
import { migrationMetrics } from './metrics.js';
import { MigrationReconciler, type MigrationShoot } from './reconciler.js';

export const MIGRATION_CONTROLLER_NAME = 'migration';

export function addMigrationController(seed: SeedContext): RunningController {
  const { signal } = seed;
  /** Per shoot (its context: a restarted shoot has a new cache), what the migration holds of it. */
  const leases = new Map<string, { shoot: ShootContext; acquired: AcquiredInformer<WireLease> }>();
  const nodeWatches = new Map<string, { shoot: ShootContext; unsubscribe: () => void }>();
  let controller: Controller | undefined;

  const release = (namespace: string) => {
    const held = leases.get(namespace);
    if (!held) return;
    leases.delete(namespace);
    held.acquired.release();
  };
  /** The running shoot as the migration reads it; Leases are held while `watchLeases`. */
  const shootFor = (namespace: string, watchLeases: boolean): MigrationShoot | undefined => {
    const shoot = seed.shoots.get(namespace);
    if (!shoot || !watchLeases || leases.get(namespace)?.shoot !== shoot) release(namespace);
    const watch = nodeWatches.get(namespace);
    if (watch && watch.shoot !== shoot) {
      watch.unsubscribe();
      nodeWatches.delete(namespace);
    }
    if (!shoot) return undefined;
    const nodes = shootNodes<NodeObject>(shoot.cache);
    if (!nodeWatches.has(namespace)) {
      const checksum = (n: NodeObject) => n.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData];
      const unsubscribe = nodes.subscribe({
        update: (before, after) => {
          if (leases.has(namespace) && checksum(before) !== checksum(after)) controller?.queue.add(namespace);
        },
      });
      nodeWatches.set(namespace, { shoot, unsubscribe });
    }
    if (watchLeases && !leases.has(namespace)) {
      leases.set(namespace, { shoot, acquired: agentLeases(shoot.cache) });
    }
    const secrets = oscSecrets(shoot.cache);
    const held = leases.get(namespace);
    return {
      client: shoot.client,
      nodes: () => nodes.list(),
      oscSecrets: () => secrets.list(),
      leases: () =>
        held && nodes.hasSynced && secrets.hasSynced && held.acquired.informer.hasSynced
          ? held.acquired.informer.list()
          : undefined,
    };
  };

  const reconciler = new MigrationReconciler({
    seed: seed.client,
    cluster: (namespace) => selectedCluster(seed.config, seed.clusters.get(namespace)),
    useGardenerNodeAgent: seed.config.featureGates[FEATURE_GATE_USE_GARDENER_NODE_AGENT],
    shoot: shootFor,
    applier: seed.config.applyMode === 'direct' ? directShootApplier() : undefined,
    checkIntervalMs: seed.config.controllers.migration.checkInterval,
    recorder: seed.recorder,
    metrics: migrationMetrics(seed.registry),
  });
  controller = new Controller({
    name: MIGRATION_CONTROLLER_NAME,
    log: seed.log,
    metrics: seed.metrics,
    timeoutMs: 3 * 60_000,
    reconcile: (namespace, ctx) => seed.mutex.run(namespace, () => reconciler.reconcile(namespace, ctx)),
  });
  const enqueue = (o: { metadata?: { name?: string } }) => controller?.queue.add(o.metadata?.name ?? '');
  const unsubscribeClusters = seed.clusters.subscribe({
    add: enqueue,
    update: (_, c) => enqueue(c),
    delete: enqueue,
  });
  const states = migrationStates(seed.cache);
  const stateChanged = (cm: { metadata?: { name?: string; namespace?: string } }) => {
    if (cm.metadata?.name === MIGRATION_STATE_NAME) controller?.queue.add(cm.metadata?.namespace ?? '');
  };
  const unsubscribeStates = states.subscribe({ add: stateChanged, update: (_, cm) => stateChanged(cm) });
  const synced = Promise.all([seed.clusters.waitForSync(signal), states.waitForSync(signal)]).then(() =>
    controller?.start(signal),
  );
  synced.catch(() => undefined);
  const stopped = (async () => {
    await whenAborted(signal);
    unsubscribeClusters();
    unsubscribeStates();
    for (const namespace of [...leases.keys()]) release(namespace);
    for (const watch of nodeWatches.values()) watch.unsubscribe();
    await controller?.stopped();
  })();
  return { synced: () => synced.then(() => undefined), stopped: () => stopped };
}
