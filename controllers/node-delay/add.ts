/**
 * Wires the node-delay controller for one shoot: the shoot cache's informer on Nodes (shared with
 * every controller that reads Nodes) and a single work-queue key per shoot, so a burst of joins
 * and leaves (a rolling update, a scale-out) is one computation. Node updates enqueue only when something the assignment reads changed
 * (name set, zone label, the delay annotation, deletion); a periodic resync picks up a changed
 * max delay on the Cluster. The controller reads nothing but Nodes in the shoot and writes
 * nothing but the delay annotation on them (and Warning events on the Cluster in the seed).
 */
import { ANNOTATION, LABEL } from '../../api/index.js';
import { newController } from '../../runtime/controller-builder.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { Informer } from '../../runtime/kube/informer.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { RunningController } from '../../runtime/running-controller.js';
import type { ProcessContext, ShootContext } from '../../seed/manager/context.js';
import type { NodeDelayPatchBody, NodeObject } from './decide.js';
import { nodeDelayMetrics } from './metrics.js';
import { NodeDelayReconciler, type NodePatcher } from './reconciler.js';

export const NODE_DELAY_CONTROLLER_NAME = 'node-delay';

export interface NodeDelayControllerOptions {
  /** The shortest delay in nanoseconds (default 0); lowered to the shoot's maximum if above it. */
  readonly minDelay?: number;
  /** How long a change waits, so that a burst is one reconcile (default 1000 ms). */
  readonly batchDelayMs?: number;
  /** How often the assignment is recomputed without a Node event, e.g. for a new max delay (default 60 s). */
  readonly resyncPeriodMs?: number;
  /** Node patches in flight at once (default 8). */
  readonly patchConcurrency?: number;
  /**
   * Only Nodes matching this label selector take part (default: every Node of the shoot, as
   * upstream: the node agent's delay window covers all nodes).
   */
  readonly nodeLabelSelector?: string;
  /**
   * Whether to act for the shoot now, read at every reconcile (default: always); false writes
   * nothing (controllers/left-to-resource-manager.ts).
   */
  readonly acts?: () => boolean;
}

/** The running controller; `reconciler` exposes the last assignment for tests and diagnostics. */
export interface RunningNodeDelayController extends RunningController {
  readonly informer: Informer<NodeObject>;
  readonly reconciler: NodeDelayReconciler;
}

function validateOptions(o: NodeDelayControllerOptions): void {
  const checks: [string, number | undefined, number][] = [
    ['minDelay', o.minDelay, 0],
    ['batchDelayMs', o.batchDelayMs, 0],
    ['resyncPeriodMs', o.resyncPeriodMs, 1],
    ['patchConcurrency', o.patchConcurrency, 1],
  ];
  for (const [name, value, least] of checks) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < least))
      throw new RangeError(`${name}: ${value} must be a whole number ≥ ${least}`);
  }
}

/** The assignment reads only these parts of a Node; other updates (status, other labels) do nothing. */
function relevantChange(previous: NodeObject, next: NodeObject): boolean {
  const a = previous.metadata;
  const b = next.metadata;
  return (
    a?.name !== b?.name ||
    a?.labels?.[LABEL.zone] !== b?.labels?.[LABEL.zone] ||
    a?.annotations?.[ANNOTATION.reconciliationDelay] !== b?.annotations?.[ANNOTATION.reconciliationDelay] ||
    Boolean(a?.deletionTimestamp) !== Boolean(b?.deletionTimestamp)
  );
}

/** Merge patches through the shoot's API: 409 is a conflict, 404 a Node gone meanwhile. */
export function nodePatcher(client: Pick<KubeClient, 'mergePatch'>): NodePatcher {
  return {
    async patch(name: string, body: NodeDelayPatchBody) {
      try {
        await client.mergePatch(RESOURCE.node, { name }, body);
        return 'patched';
      } catch (error) {
        if (isApiStatus(error, 409)) return 'conflict';
        if (isApiStatus(error, 404)) return 'gone';
        throw error;
      }
    },
  };
}

export function addNodeDelayController(
  shoot: ShootContext,
  seed: ProcessContext,
  options: NodeDelayControllerOptions,
): RunningNodeDelayController {
  validateOptions(options);
  const informer = shoot.cache.informer<NodeObject>({
    resource: RESOURCE.node,
    labelSelector: options.nodeLabelSelector,
  });
  const metrics = nodeDelayMetrics(seed.metrics.registry);
  const reconciler = new NodeDelayReconciler({
    shoot: shoot.namespace,
    shootAnnotations: () => shoot.cluster().shoot.metadata.annotations,
    nodes: () => informer.list(),
    patcher: nodePatcher(shoot.client),
    acts: options.acts,
    minDelay: options.minDelay ?? 0,
    resyncPeriodMs: options.resyncPeriodMs ?? 60_000,
    patchConcurrency: options.patchConcurrency ?? 8,
    recorder: seed.recorder,
    eventObject: shoot.eventObject,
    metrics,
  });
  const running = newController(NODE_DELAY_CONTROLLER_NAME, {
    timeoutMs: 3 * 60_000,
    log: shoot.log.child({ shoot: shoot.namespace }),
    metrics: seed.metrics,
  })
    // one key per shoot: a burst of joins and leaves is one computation
    .watches(
      informer,
      () => shoot.namespace,
      { create: true, update: relevantChange, delete: true },
      {
        delayMs: options.batchDelayMs ?? 1000,
      },
    )
    .enqueueOnStart(shoot.namespace)
    .ownsSeries(metrics.nodes, { shoot: shoot.namespace })
    .start(shoot.signal, (key, ctx) => reconciler.reconcile(key, ctx));
  return { ...running, informer, reconciler };
}
