/**
 * Wires the node agent CSR approver for one shoot: the shoot cache's CertificateSigningRequests
 * (shared with the authorizer) and Nodes; every request not yet decided is judged once. Runs only
 * with per-node identities. It writes nothing but the approval of node agent requests; other
 * requests (the kubelets', anyone else's) are left to their own approvers.
 */

import { whenAborted } from '../../runtime/abort.js';
import { Controller } from '../../runtime/controller.js';
import type { ProcessContext, RunningController, ShootContext } from '../../seed/manager/context.js';
import {
  type CsrObject,
  isFinal,
  NodeAgentCsrIndex,
  shootCsrs,
} from '../../seed/node-identity/node-agent-csr.js';
import { shootNodes } from '../../seed/shoot-nodes/shoot-informers.js';
import { CsrApproverReconciler, csrApproverMetrics } from './reconciler.js';

export const CSR_APPROVER_CONTROLLER_NAME = 'node-agent-csr-approver';

export interface RunningCsrApprover extends RunningController {
  readonly controller: Controller;
}

export interface CsrApproverSettings {
  /** `nodeAgent.maxCertificateLifetime`, in milliseconds. */
  readonly maxCertificateLifetime: number;
}

export function startCsrApprover(
  shoot: ShootContext,
  env: ProcessContext,
  settings: CsrApproverSettings,
): RunningCsrApprover {
  const { signal } = shoot;
  const log = shoot.log.child({ shoot: shoot.namespace, controller: CSR_APPROVER_CONTROLLER_NAME });
  const csrs = shootCsrs(shoot.cache);
  const nodes = shootNodes(shoot.cache);
  const reconciler = new CsrApproverReconciler({
    csr: (name) => csrs.get(name),
    index: new NodeAgentCsrIndex(csrs),
    nodeExists: (name) => nodes.get(name) !== undefined,
    client: shoot.client,
    recorder: env.recorder,
    eventObject: shoot.eventObject,
    metrics: csrApproverMetrics(env.metrics.registry),
    maxExpirationSeconds: Math.floor(settings.maxCertificateLifetime / 1000),
  });
  const controller = new Controller({
    name: CSR_APPROVER_CONTROLLER_NAME,
    reconcile: async (name, ctx) => {
      await reconciler.reconcile(name, ctx);
    },
    timeoutMs: 60_000,
    log,
    metrics: env.metrics,
  });
  const enqueue = (csr: CsrObject) => {
    if (!isFinal(csr) && csr.metadata?.name) controller.queue.add(csr.metadata.name);
  };
  const unsubscribe = csrs.subscribe({ add: enqueue, update: (_, csr) => enqueue(csr) });
  // judge only with both caches filled: "is this node registered?" needs every Node
  const synced = Promise.all([csrs.waitForSync(signal), nodes.waitForSync(signal)]).then(() =>
    controller.start(signal),
  );
  synced.catch(() => undefined);
  const stopped = (async () => {
    await whenAborted(signal);
    unsubscribe();
    await controller.stopped();
  })();
  return { controller, synced: () => synced, stopped: () => stopped };
}
