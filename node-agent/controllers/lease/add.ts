/** The lease controller (node-side §10): renews the heartbeat every 10 s once the Node exists. */
import type { V1Node } from '@kubernetes/client-node';
import { Controller } from '../../../runtime/controller.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import type { WireLease } from '../../../runtime/kube/lease.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import { LEASE_RENEW_INTERVAL_MS, renewLease } from './lease-heartbeat.js';

export const LEASE_CONTROLLER_NAME = 'lease';

export interface LeaseControllerOptions {
  readonly client: KubeClient;
  readonly node: () => V1Node | undefined;
  readonly renewIntervalMs?: number;
  readonly now?: () => Date;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
}

export function startLeaseController(o: LeaseControllerOptions, signal: AbortSignal): Controller {
  const interval = o.renewIntervalMs ?? LEASE_RENEW_INTERVAL_MS;
  let last: WireLease | undefined;
  const controller = new Controller({
    name: LEASE_CONTROLLER_NAME,
    log: o.log ?? silentLogger,
    metrics: o.metrics,
    timeoutMs: interval * 4,
    reconcile: async () => {
      const node = o.node();
      if (!node?.metadata?.name) return { requeueAfterMs: interval };
      last = await renewLease(o.client, node, (o.now ?? (() => new Date()))(), last);
      return { requeueAfterMs: interval };
    },
  });
  controller.start(signal);
  controller.queue.add('lease');
  return controller;
}
