/**
 * Observes one CertificateSigningRequest, lets decide.ts judge it and writes the verdict through
 * the `approval` subresource (the signer then issues an approved certificate). Approvals are
 * logged; denials are also a Warning event on the Cluster, since they mean a machine cannot get
 * its identity or someone asked for an identity that is not theirs.
 */
import { Counter, type Registry } from 'prom-client';
import type { ReconcileContext } from '../../runtime/controller.js';
import type { EventObject, EventRecorder } from '../../runtime/events.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import {
  type CsrCondition,
  type CsrObject,
  isFinal,
  type NodeAgentCsrIndex,
} from '../../seed/node-identity/node-agent-csr.js';
import { type CsrDecision, decideNodeAgentCsr } from './decide.js';

export interface CsrApproverMetrics {
  readonly decisions: Counter<'decision'>;
}

const byRegistry = new WeakMap<Registry, CsrApproverMetrics>();

export function csrApproverMetrics(registry: Registry): CsrApproverMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const metrics: CsrApproverMetrics = {
    decisions: new Counter({
      name: 'gardener_osc_node_agent_csrs_total',
      help: 'Node agent certificate signing requests judged by the approver, by decision (approve, deny)',
      labelNames: ['decision'],
      registers: [registry],
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

export interface CsrApproverOptions {
  readonly csr: (name: string) => CsrObject | undefined;
  readonly index: NodeAgentCsrIndex;
  readonly nodeExists: (name: string) => boolean;
  readonly client: Pick<KubeClient, 'update'>;
  readonly recorder: EventRecorder;
  readonly eventObject: EventObject;
  readonly metrics: CsrApproverMetrics;
  /** `nodeAgent.maxCertificateLifetime` in seconds. */
  readonly maxExpirationSeconds: number;
  readonly now?: () => Date;
}

export class CsrApproverReconciler {
  /** Approvals of this process not yet in the cache: a token asking twice at once gets one. */
  private readonly approved = new Map<string, Set<string>>();
  /** The same by node: request name and requester of each approval. */
  private readonly approvedByNode = new Map<string, Map<string, string>>();

  constructor(private readonly o: CsrApproverOptions) {}

  async reconcile(name: string, ctx: ReconcileContext): Promise<CsrDecision | undefined> {
    const live = this.o.csr(name);
    if (!live || isFinal(live)) return undefined;
    const csr = this.o.index.get(name);
    if (!csr) return undefined;
    const decision = decideNodeAgentCsr(csr, {
      nodeExists: this.o.nodeExists,
      approvedNodesOf: (requester, except) => [
        ...new Set([
          ...this.o.index
            .list()
            .filter((c) => c.requester === requester && c.approved && c.name !== except)
            .map((c) => c.node),
          ...(this.approved.get(requester) ?? []),
        ]),
      ],
      approvedFor: (node, except) => {
        const mine = this.approvedByNode.get(node);
        const found = new Map<string, string>();
        for (const c of this.o.index.list()) {
          if (c.node !== node) continue;
          if (!c.approved) continue;
          mine?.delete(c.name); // the cache shows the approval now: it answers from here on
          found.set(c.name, c.requester);
        }
        for (const [n, requester] of mine ?? []) found.set(n, requester);
        if (mine?.size === 0) this.approvedByNode.delete(node);
        found.delete(except);
        return [...found].map(([name, requester]) => ({ name, requester }));
      },
      maxExpirationSeconds: this.o.maxExpirationSeconds,
    });
    if (decision.action === 'ignore') return decision;
    const approve = decision.action === 'approve';
    const condition: CsrCondition = {
      type: approve ? 'Approved' : 'Denied',
      status: 'True',
      reason: approve ? 'RequestApproved' : 'RequestDenied',
      message: `${approve ? 'Approving' : 'Denying'} gardener-node-agent client certificate (${decision.why})`,
      lastUpdateTime: (this.o.now?.() ?? new Date()).toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    await this.o.client.update(
      RESOURCE.certificateSigningRequest,
      { ...live, status: { ...live.status, conditions: [...(live.status?.conditions ?? []), condition] } },
      { subresource: 'approval', signal: ctx.signal },
    );
    this.o.metrics.decisions.inc({ decision: decision.action });
    const fields = { csr: name, node: csr.node, requester: csr.requester, why: decision.why };
    if (approve) {
      const byNode = this.approvedByNode.get(csr.node) ?? new Map<string, string>();
      this.approvedByNode.set(csr.node, byNode.set(name, csr.requester));
      if (csr.requester.startsWith('system:bootstrap:')) {
        const nodes = this.approved.get(csr.requester) ?? new Set<string>();
        this.approved.set(csr.requester, nodes.add(csr.node));
      }
      ctx.log.info(fields, 'Approved a node agent certificate signing request');
    } else {
      ctx.log.info(fields, 'Denied a node agent certificate signing request');
      void this.o.recorder.event(
        this.o.eventObject,
        'Warning',
        'NodeAgentCSRDenied',
        `Denied certificate signing request ${name} for node ${csr.node}: ${decision.why}`,
      );
    }
    return decision;
  }
}
