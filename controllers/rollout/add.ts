/**
 * Wires the rollout gate for one shoot: the shoot cache's Nodes and OSC secrets (shared with the
 * other controllers), its agents' Leases (held while the gate is on), and the Cluster in the seed
 * cache (settings and the operator's action). One work-queue key per shoot: a change of what the
 * gate reads (a report, a checksum, Ready, a Lease-independent field) decides again after a short
 * batch delay; the decision itself says when to look again (a grant due, a settle time ending, a
 * Lease to check).
 */
import { newController } from '../../runtime/controller-builder.js';
import type { AcquiredInformer } from '../../runtime/kube/cluster-cache.js';
import type { RunningController } from '../../runtime/running-controller.js';
import { type SeedContext, type ShootContext, selectedCluster } from '../../seed/manager/context.js';
import { agentLeases, oscSecrets, shootNodes } from '../../seed/shoot-nodes/shoot-informers.js';
import { rolloutMetrics } from './metrics.js';
import type { LeaseObject, NodeObject, SecretObject } from './observe.js';
import { RolloutReconciler } from './reconciler.js';
import { clusterAnnotationsChanged, nodeChanged, secretChanged } from './signatures.js';

export const ROLLOUT_CONTROLLER_NAME = 'rollout';

export interface RolloutControllerOptions {
  /** How long a change waits, so that a burst is one decision (default 300 ms). */
  readonly batchDelayMs?: number;
  /** Without a due time, the rollout is looked at again after this long (default 60 s). */
  readonly resyncPeriodMs?: number;
}

export function addRolloutController(
  shoot: ShootContext,
  seed: SeedContext,
  options: RolloutControllerOptions = {},
): RunningController {
  const { signal, namespace } = shoot;
  const log = shoot.log.child({ shoot: namespace });
  const nodes = shootNodes<NodeObject & { metadata?: { name?: string } }>(shoot.cache);
  const secrets = oscSecrets(shoot.cache);
  const builder = newController(ROLLOUT_CONTROLLER_NAME, {
    timeoutMs: 3 * 60_000,
    log,
    metrics: seed.metrics,
  });
  const batchDelayMs = options.batchDelayMs ?? 300;
  const enqueue = () => builder.queue.addAfter(namespace, batchDelayMs);
  let leases: AcquiredInformer<LeaseObject> | undefined;
  const releaseLeases = () => {
    leases?.release();
    leases = undefined;
  };
  const reconciler = new RolloutReconciler({
    namespace,
    settings: seed.config.controllers.rollout,
    cluster: shoot.cluster,
    clusterAnnotations: () => seed.clusters.get(namespace)?.metadata?.annotations,
    shoot: {
      nodes: () => nodes.list(),
      oscSecrets: () => secrets.list() as SecretObject[],
      leases: () => {
        if (!leases) {
          const acquired = agentLeases(shoot.cache) as unknown as AcquiredInformer<LeaseObject>;
          leases = acquired;
          // the gate waits while the Leases are unknown: decide again once they are cached
          if (!acquired.informer.hasSynced)
            acquired.informer.waitForSync(signal).then(
              () => leases === acquired && enqueue(),
              () => undefined,
            );
        }
        return leases.informer.hasSynced ? leases.informer.list() : undefined;
      },
      releaseLeases,
    },
    shootClient: shoot.client,
    seed: seed.client,
    recorder: seed.recorder,
    eventObject: shoot.eventObject,
    metrics: rolloutMetrics(seed.registry),
    resyncPeriodMs: options.resyncPeriodMs,
  });
  const batched = { delayMs: batchDelayMs };
  const ours = (c: { metadata?: { name?: string } }) => c.metadata?.name === namespace;
  return (
    builder
      // one key per shoot; decide only on full caches: a partial list would look like nodes
      // without a configuration
      .watches(nodes, () => namespace, { create: true, update: nodeChanged, delete: true }, batched)
      .watches(
        secrets,
        () => namespace,
        { create: true, update: (a, b) => secretChanged(a as SecretObject, b as SecretObject), delete: true },
        batched,
      )
      .watches(
        seed.clusters,
        () => namespace,
        { update: (a, b) => ours(b) && clusterAnnotationsChanged(a, b) },
        { ...batched, waitForSync: false },
      )
      .enqueueOnStart(namespace)
      .onStop(async () => {
        // handed over (deselected) or deleted, not a shutdown or a lost leadership: let go of the nodes
        if (!seed.signal.aborted && !selectedCluster(seed.config, seed.clusters.get(namespace))) {
          await reconciler
            .release({ signal: new AbortController().signal, log })
            .then(() => log.info('The shoot is no longer selected: removed the rollout permissions'))
            .catch((e: unknown) =>
              log.error({ err: e }, 'Unable to remove the rollout permissions of a deselected shoot'),
            );
        }
        releaseLeases();
        reconciler.forget();
      })
      .start(signal, (key, ctx) => reconciler.reconcile(key, ctx))
  );
}
