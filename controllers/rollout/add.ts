/**
 * Wires the rollout gate for one shoot: the shoot cache's Nodes and OSC secrets (shared with the
 * other controllers), its agents' Leases (held while the gate is on), and the Cluster in the seed
 * cache (settings and the operator's action). One work-queue key per shoot: a change of what the
 * gate reads (a report, a checksum, Ready, a Lease-independent field) decides again after a short
 * batch delay; the decision itself says when to look again (a grant due, a settle time ending, a
 * Lease to check).
 */
import {
  ANNOTATION,
  LABEL,
  NODE_AGENT_REPORT_ANNOTATIONS,
  PERMITTED_CHECKSUM_ANNOTATION,
} from '../../api/index.js';
import { whenAborted } from '../../runtime/abort.js';
import { Controller } from '../../runtime/controller.js';
import type { AcquiredInformer } from '../../runtime/kube/cluster-cache.js';
import {
  type RunningController,
  type SeedContext,
  type ShootContext,
  selectedCluster,
} from '../../seed/manager/context.js';
import { agentLeases, oscSecrets, shootNodes } from '../../seed/shoot-nodes/shoot-informers.js';
import { rolloutMetrics } from './metrics.js';
import type { LeaseObject, NodeObject, SecretObject } from './observe.js';
import { RolloutReconciler } from './reconciler.js';

export const ROLLOUT_CONTROLLER_NAME = 'rollout';

export interface RolloutControllerOptions {
  /** How long a change waits, so that a burst is one decision (default 300 ms). */
  readonly batchDelayMs?: number;
  /** Without a due time, the rollout is looked at again after this long (default 60 s). */
  readonly resyncPeriodMs?: number;
}

const NODE_FIELDS_READ = [
  ANNOTATION.checksumCloudConfigData,
  ANNOTATION.reconciliationDelay,
  PERMITTED_CHECKSUM_ANNOTATION,
  ...NODE_AGENT_REPORT_ANNOTATIONS,
];
const NODE_LABELS_READ = [LABEL.workerPool, LABEL.zone, LABEL.kubernetesVersion, LABEL.criName];

/** What the gate reads of a Node, as one string: an update that does not change it does nothing. */
function nodeSignature(n: NodeObject): string {
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
  return JSON.stringify([
    NODE_FIELDS_READ.map((k) => n.metadata?.annotations?.[k]),
    NODE_LABELS_READ.map((k) => n.metadata?.labels?.[k]),
    Boolean(n.metadata?.deletionTimestamp),
    ready?.status,
    String(ready?.lastTransitionTime ?? ''),
    n.spec?.taints?.map((t) => `${t.key}:${t.effect}`) ?? [],
  ]);
}

function secretSignature(s: SecretObject): string {
  return JSON.stringify([
    s.metadata?.annotations?.[ANNOTATION.checksumDataScript],
    s.metadata?.labels?.[LABEL.workerPool],
    s.metadata?.labels?.[LABEL.gardenerRole],
  ]);
}

export function startRolloutController(
  shoot: ShootContext,
  seed: SeedContext,
  options: RolloutControllerOptions = {},
): RunningController & { readonly controller: Controller } {
  const { signal, namespace } = shoot;
  const log = shoot.log.child({ shoot: namespace });
  const nodes = shootNodes<NodeObject & { metadata?: { name?: string } }>(shoot.cache);
  const secrets = oscSecrets(shoot.cache);
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
  const controller = new Controller({
    name: ROLLOUT_CONTROLLER_NAME,
    reconcile: (key, ctx) => reconciler.reconcile(key, ctx),
    timeoutMs: 3 * 60_000,
    log,
    metrics: seed.metrics,
  });
  const batchDelayMs = options.batchDelayMs ?? 300;
  const enqueue = () => controller.queue.addAfter(namespace, batchDelayMs);
  const unsubscribe = [
    nodes.subscribe({
      add: enqueue,
      update: (a, b) => nodeSignature(a) !== nodeSignature(b) && enqueue(),
      delete: enqueue,
    }),
    secrets.subscribe({
      add: enqueue,
      update: (a, b) =>
        secretSignature(a as SecretObject) !== secretSignature(b as SecretObject) && enqueue(),
      delete: enqueue,
    }),
    seed.clusters.subscribe({
      update: (a, b) => {
        if (b.metadata?.name !== namespace) return;
        if (JSON.stringify(a.metadata?.annotations ?? {}) !== JSON.stringify(b.metadata?.annotations ?? {}))
          enqueue();
      },
    }),
  ];
  // decide only on full caches: a partial list would look like nodes without a configuration
  const synced = Promise.all([nodes.waitForSync(signal), secrets.waitForSync(signal)]).then(() => {
    controller.start(signal);
    controller.queue.add(namespace);
  });
  synced.catch(() => undefined);
  const stopped = (async () => {
    await whenAborted(signal);
    for (const u of unsubscribe) u();
    await controller.stopped();
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
  })();
  return { controller, synced: () => synced, stopped: () => stopped };
}
