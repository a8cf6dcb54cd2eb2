/** The lease controller (gardener v1.91.4 `pkg/nodeagent/controller/lease/reconciler.go`): renews the heartbeat every 10 s once the Node exists. */
import type { V1Node } from '@kubernetes/client-node';
import { newController, type WatchSource } from '../../../runtime/controller-builder.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import type { WireLease } from '../../../runtime/kube/lease.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { RunningController } from '../../../runtime/running-controller.js';
import { LEASE_RENEW_INTERVAL_MS, renewLease } from './lease-heartbeat.js';

export const LEASE_CONTROLLER_NAME = 'lease';
const KEY = 'lease';

export interface LeaseControllerOptions {
  readonly client: KubeClient;
  readonly node: () => V1Node | undefined;
  /**
   * The agent's Node informer: the first heartbeat must not wait a renew interval when the Node
   * appears after start-up, as the seed counts a node as running the agent only once its Lease exists.
   */
  readonly nodes?: WatchSource<V1Node>;
  readonly renewIntervalMs?: number;
  readonly now?: () => Date;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
}

export function addLeaseController(o: LeaseControllerOptions, signal: AbortSignal): RunningController {
  const interval = o.renewIntervalMs ?? LEASE_RENEW_INTERVAL_MS;
  let last: WireLease | undefined;
  const builder = newController(LEASE_CONTROLLER_NAME, {
    log: o.log ?? silentLogger,
    metrics: o.metrics,
    timeoutMs: interval * 4,
  }).enqueueOnStart(KEY);
  if (o.nodes) builder.watches(o.nodes, () => KEY, { create: true }, { waitForSync: false });
  return builder.start(signal, async () => {
    const node = o.node();
    if (!node?.metadata?.name) return { requeueAfterMs: interval };
    last = await renewLease(o.client, node, (o.now ?? (() => new Date()))(), last);
    return { requeueAfterMs: interval };
  });
}
