/**
 * Wires the operatingsystemconfig controller: every Cluster change enqueues its shoot namespace;
 * every change of an OSC (its OS extension reporting, say) and of a shoot's recorded migration
 * phase enqueues the namespace it lives in, so waiting costs no polling delay. It reads the
 * Clusters, OSCs and shoot-access secrets from the seed cache and the shoot's Nodes and OSC
 * secrets from the shoot cache; a shoot whose caches fill (after it started) is enqueued then, so
 * the node status a reconcile could not know yet is reported without polling. Reconciles of one
 * shoot are serialised with the migration controller's through the shared per-shoot mutex.
 */
import type { V1Secret } from '@kubernetes/client-node';
import type { OperatingSystemConfig } from '../../api/index.js';
import { newController } from '../../runtime/controller-builder.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { RunningController } from '../../runtime/running-controller.js';
import { directShootApplier } from '../../seed/direct-apply/shoot-applier.js';
import {
  CLUSTER_EVENT_NAMESPACE,
  clusterEventsSelector,
  type SeedContext,
} from '../../seed/manager/context.js';
import {
  migrationStates,
  operatingSystemConfigs,
  shootAccessSecrets,
} from '../../seed/manager/seed-informers.js';
import { seedRenderValues } from '../../seed/manager/seed-render-values.js';
import { oscSecrets, shootNodes } from '../../seed/shoot-nodes/shoot-informers.js';
import { shootNodeState } from '../../seed/shoot-nodes/shoot-node-state.js';
import { oscControllerMetrics } from './metrics.js';
import type { ListedEvent } from './node-status.js';
import { OscReconciler, type OscShoot } from './reconciler.js';

export const OSC_CONTROLLER_NAME = 'operatingsystemconfig';

export function addOscController(seed: SeedContext): RunningController {
  const { signal, config } = seed;
  const oscs = operatingSystemConfigs<OperatingSystemConfig>(seed.cache);
  const accessSecrets = shootAccessSecrets(seed.cache);
  const states = migrationStates(seed.cache);
  const shoot = (namespace: string): OscShoot | undefined => {
    const running = seed.shoots.get(namespace);
    if (!running) return undefined;
    const nodes = shootNodes(running.cache);
    const secrets = oscSecrets(running.cache);
    return {
      client: running.client,
      nodeState: (cluster, role) =>
        nodes.hasSynced && secrets.hasSynced
          ? shootNodeState(cluster, nodes.list(), secrets.list(), role)
          : undefined,
    };
  };
  const reconciler = new OscReconciler({
    config,
    seed: seed.client,
    cluster: (name) => seed.clusters.get(name),
    oscs: (namespace) => oscs.list().filter((o) => o.metadata.namespace === namespace),
    accessSecret: (namespace, name) => accessSecrets.get(name, namespace) as V1Secret | undefined,
    renderValues: (namespace, cluster) => seedRenderValues(seed.client, namespace, cluster, config),
    shoot,
    applier: config.applyMode === 'direct' ? directShootApplier() : undefined,
    recorder: seed.recorder,
    nodeStatusEvents: (namespace) =>
      seed.client.list<ListedEvent>(RESOURCE.event, {
        namespace: CLUSTER_EVENT_NAMESPACE,
        fieldSelector: clusterEventsSelector(namespace),
      }),
    metrics: oscControllerMetrics(seed.registry),
  });
  const builder = newController(OSC_CONTROLLER_NAME, {
    log: seed.log,
    metrics: seed.metrics,
    concurrency: config.controllers.operatingSystemConfig.concurrentSyncs,
    timeoutMs: 3 * 60_000,
  });
  /** An object in a shoot namespace enqueues the shoot, if its Cluster exists. */
  const shootOf = (o: { metadata?: { namespace?: string } }) => {
    const namespace = o.metadata?.namespace ?? '';
    return seed.clusters.get(namespace) ? namespace : undefined;
  };
  /** Once a started shoot's Nodes and OSC secrets are cached, its node status can be reported. */
  seed.shoots.onStarted((namespace) => {
    const running = seed.shoots.get(namespace);
    if (!running) return;
    Promise.all([
      shootNodes(running.cache).waitForSync(running.signal),
      oscSecrets(running.cache).waitForSync(running.signal),
    ]).then(
      () => shootOf({ metadata: { namespace } }) !== undefined && builder.queue.add(namespace),
      () => undefined,
    );
  });
  return builder
    .watches(seed.clusters, (c) => c.metadata?.name ?? '')
    .watches(oscs, shootOf, { update: true, delete: true })
    .watches(states, shootOf, { create: true, update: true })
    .reads(accessSecrets)
    .start(signal, (namespace, ctx) => seed.mutex.run(namespace, () => reconciler.reconcile(namespace, ctx)));
}
