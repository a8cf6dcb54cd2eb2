/**
 * Wires the migration controller: every Cluster change and every change of a shoot's recorded
 * phase (seed cache) enqueues the shoot. While a shoot migrates, its agents' Leases are watched in
 * its shoot cache (released once it no longer migrates), a node reporting a new checksum enqueues
 * it at once, and it is checked again at the configured interval (a Lease renewed does not
 * enqueue: there are many, and a node's first report is its checksum).
 */
import { ANNOTATION, FEATURE_GATE_USE_GARDENER_NODE_AGENT, type NodeObject } from '../../api/index.js';
import { newController } from '../../runtime/controller-builder.js';
import type { AcquiredInformer } from '../../runtime/kube/cluster-cache.js';
import type { WireLease } from '../../runtime/kube/lease.js';
import type { RunningController } from '../../runtime/running-controller.js';
import { directShootApplier } from '../../seed/direct-apply/shoot-applier.js';
import { type SeedContext, type ShootContext, selectedCluster } from '../../seed/manager/context.js';
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
  const builder = newController(MIGRATION_CONTROLLER_NAME, {
    log: seed.log,
    metrics: seed.metrics,
    timeoutMs: 3 * 60_000,
  });

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
      const unsubscribe = running.watch(nodes, () => namespace, {
        update: (before, after) => leases.has(namespace) && checksum(before) !== checksum(after),
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
  const states = migrationStates(seed.cache);
  const running = builder
    .watches(seed.clusters, (c) => c.metadata?.name ?? '')
    .watches(
      states,
      (cm) => (cm.metadata?.name === MIGRATION_STATE_NAME ? (cm.metadata?.namespace ?? '') : undefined),
      {
        create: true,
        update: true,
      },
    )
    .onStop(() => {
      for (const namespace of [...leases.keys()]) release(namespace);
    })
    .start(signal, (namespace, ctx) => seed.mutex.run(namespace, () => reconciler.reconcile(namespace, ctx)));
  return running;
}
