/**
 * Wires the node controller: the agent's Node informer (shared with the other controllers)
 * enqueues its one key when the restart annotation is set or changes (restart-services.ts).
 */
import type { V1Node } from '@kubernetes/client-node';
import { newController, type WatchSource } from '../../../runtime/controller-builder.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { RunningController } from '../../../runtime/running-controller.js';
import type { Systemd } from '../../systemd/systemd.js';
import { nodeReconciler } from './reconciler.js';
import { restartAnnotationChanged } from './restart-services.js';

export const NODE_CONTROLLER_NAME = 'node';
const KEY = 'node';

export interface NodeControllerOptions {
  /** The agent's own Node. */
  readonly nodes: WatchSource<V1Node> & { list(): V1Node[] };
  readonly client: Pick<KubeClient, 'mergePatch'>;
  readonly systemd: Systemd;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
}

export function addNodeController(o: NodeControllerOptions, signal: AbortSignal): RunningController {
  return newController(NODE_CONTROLLER_NAME, {
    log: o.log ?? silentLogger,
    metrics: o.metrics,
    timeoutMs: 3 * 60_000,
  })
    .watches(
      o.nodes,
      () => KEY,
      { create: (node) => restartAnnotationChanged(undefined, node), update: restartAnnotationChanged },
      { waitForSync: false },
    )
    .start(signal, nodeReconciler({ node: () => o.nodes.list()[0], client: o.client, systemd: o.systemd }));
}
