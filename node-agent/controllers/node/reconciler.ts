/**
 * The node controller's reconcile (upstream: gardener v1.91.4
 * pkg/nodeagent/controller/node/reconciler.go): the units the agent's Node asks to restart.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { Reconciler } from '../../../runtime/controller.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import type { Systemd } from '../../systemd/systemd.js';
import { restartRequestedServices } from './restart-services.js';

export interface NodeReconcilerOptions {
  /** The agent's Node as its informer holds it; none before it registered. */
  readonly node: () => V1Node | undefined;
  readonly client: Pick<KubeClient, 'mergePatch'>;
  readonly systemd: Systemd;
}

export function nodeReconciler(o: NodeReconcilerOptions): Reconciler {
  return async (_key, ctx) => {
    const node = o.node();
    if (node) await restartRequestedServices(node, o.client, o.systemd, ctx.log);
  };
}
