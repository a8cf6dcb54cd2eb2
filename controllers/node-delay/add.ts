/**
 * Wires the node-delay controller for one shoot: a single informer on the shoot's Nodes and a
 * single work-queue key per shoot, so a burst of joins and leaves (a rolling update, a scale-out)
 * is one computation. Node updates enqueue only when something the assignment reads changed
 * (name set, zone label, the delay annotation, deletion); a periodic resync picks up a changed
 * max delay on the Cluster. The controller reads nothing but Nodes in the shoot and writes
 * nothing but the delay annotation on them (and Warning events on the Cluster in the seed).
 */
import { ApiException, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { ANNOTATION, LABEL } from '../../api/index.js';
import { Controller } from '../../runtime/controller.js';
import { Informer } from '../../runtime/kube/informer.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import {
  clusterEventObject,
  type RunningShootController,
  type ShootContext,
} from '../../seed/manager/shoot-context.js';
import {
  type NodeDelayPatchBody,
  NodeDelayReconciler,
  type NodeObject,
  type NodePatcher,
  nodeDelayMetrics,
} from './reconciler.js';

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
  /** The shoot's API server for watches (default: from `ctx.shootKubeConfig`). */
  readonly http?: KubeHttp;
}

/** The running controller; `reconciler` exposes the last assignment for tests and diagnostics. */
export interface RunningNodeDelayController extends RunningShootController {
  readonly controller: Controller;
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

/** Merge patches through client-node: 409 is a conflict, 404 a Node gone meanwhile. */
export function coreNodePatcher(core: CoreV1Api): NodePatcher {
  return {
    async patch(name: string, body: NodeDelayPatchBody) {
      try {
        await core.patchNode({ name, body }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
        return 'patched';
      } catch (error) {
        if (error instanceof ApiException && error.code === 409) return 'conflict';
        if (error instanceof ApiException && error.code === 404) return 'gone';
        throw error;
      }
    },
  };
}

export function startNodeDelayController(
  ctx: ShootContext,
  options: NodeDelayControllerOptions,
  signal: AbortSignal,
): RunningNodeDelayController {
  validateOptions(options);
  const log = ctx.log.child({ shoot: ctx.namespace });
  const ownHttp = options.http ? undefined : new KubeHttp(ctx.shootKubeConfig);
  const http = options.http ?? ownHttp!;
  const informer = new Informer<NodeObject>({
    http,
    path: '/api/v1/nodes',
    labelSelector: options.nodeLabelSelector,
    log,
    metrics: ctx.metrics,
  });
  const metrics = nodeDelayMetrics(ctx.metrics.registry);
  const reconciler = new NodeDelayReconciler({
    shoot: ctx.namespace,
    shootAnnotations: () => ctx.cluster().shoot.metadata.annotations,
    nodes: () => informer.list(),
    patcher: coreNodePatcher(ctx.shootKubeConfig.makeApiClient(CoreV1Api)),
    minDelay: options.minDelay ?? 0,
    resyncPeriodMs: options.resyncPeriodMs ?? 60_000,
    patchConcurrency: options.patchConcurrency ?? 8,
    recorder: ctx.recorder,
    eventObject: clusterEventObject(ctx.namespace),
    metrics,
  });
  const controller = new Controller({
    name: NODE_DELAY_CONTROLLER_NAME,
    reconcile: (key, rctx) => reconciler.reconcile(key, rctx),
    timeoutMs: 3 * 60_000,
    log,
    metrics: ctx.metrics,
  });
  const key = ctx.namespace;
  const batchDelayMs = options.batchDelayMs ?? 1000;
  const enqueue = () => controller.queue.addAfter(key, batchDelayMs);
  informer.on({
    add: enqueue,
    update: (previous, next) => {
      if (relevantChange(previous, next)) enqueue();
    },
    delete: enqueue,
  });
  informer.start(signal);
  // Decide only on a full cache: a partial list would look like nodes leaving.
  const synced = informer.waitForSync(signal).then(() => {
    controller.start(signal);
    controller.queue.add(key);
  });
  synced.catch(() => undefined);
  const stopped = (async () => {
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.all([informer.stopped(), controller.stopped()]);
    metrics.nodes.remove({ shoot: ctx.namespace });
    await ownHttp?.close();
  })();
  return { controller, informer, reconciler, synced: () => synced, stopped: () => stopped };
}
