/**
 * Wires the node agent CSR approver for one shoot: the shoot cache's CertificateSigningRequests
 * (shared with the authorizer) and Nodes; every request not yet decided is judged once. Runs only
 * with per-node identities. It writes nothing but the approval of node agent requests; other
 * requests (the kubelets', anyone else's) are left to their own approvers.
 */
import { newController } from '../../runtime/controller-builder.js';
import type { RunningController } from '../../runtime/running-controller.js';
import type { ProcessContext, ShootContext } from '../../seed/manager/context.js';
import {
  type CsrObject,
  isFinal,
  NodeAgentCsrIndex,
  shootCsrs,
} from '../../seed/node-identity/node-agent-csr.js';
import { shootNodes } from '../../seed/shoot-nodes/shoot-informers.js';
import { CsrApproverReconciler, csrApproverMetrics } from './reconciler.js';

export const CSR_APPROVER_CONTROLLER_NAME = 'node-agent-csr-approver';

export interface CsrApproverSettings {
  /** `nodeAgent.maxCertificateLifetime`, in milliseconds. */
  readonly maxCertificateLifetime: number;
  /**
   * Whether to judge the shoot's requests now (default: always); a request seen while not is
   * left undecided (controllers/left-to-resource-manager.ts).
   */
  readonly acts?: () => boolean;
}

export function addCsrApproverController(
  shoot: ShootContext,
  seed: ProcessContext,
  settings: CsrApproverSettings,
): RunningController {
  const csrs = shootCsrs(shoot.cache);
  const nodes = shootNodes(shoot.cache);
  const reconciler = new CsrApproverReconciler({
    csr: (name) => csrs.get(name),
    index: new NodeAgentCsrIndex(csrs),
    nodeExists: (name) => nodes.get(name) !== undefined,
    client: shoot.client,
    recorder: seed.recorder,
    eventObject: shoot.eventObject,
    metrics: csrApproverMetrics(seed.metrics.registry),
    maxExpirationSeconds: Math.floor(settings.maxCertificateLifetime / 1000),
  });
  const acts = settings.acts ?? (() => true);
  const undecided = (csr: CsrObject) => !isFinal(csr) && Boolean(csr.metadata?.name);
  return (
    newController(CSR_APPROVER_CONTROLLER_NAME, {
      timeoutMs: 60_000,
      log: shoot.log.child({ shoot: shoot.namespace, controller: CSR_APPROVER_CONTROLLER_NAME }),
      metrics: seed.metrics,
    })
      .watches(csrs, (csr) => csr.metadata?.name, { create: undecided, update: (_, csr) => undecided(csr) })
      // judge only with both caches filled: "is this node registered?" needs every Node
      .reads(nodes)
      .start(shoot.signal, async (name, ctx) => {
        if (acts()) await reconciler.reconcile(name, ctx);
      })
  );
}
