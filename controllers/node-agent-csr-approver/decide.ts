/**
 * Whether a node agent's request for its client certificate is approved (pure). The subject must
 * be exactly the node agent's (`CN=gardener.cloud:node-agent:machine:<node>`,
 * `O=gardener.cloud:node-agents`), ask for nothing else (no SANs, no other attributes), be signed
 * by the key it carries, ask only for client use and for a lifetime (`spec.expirationSeconds`)
 * of at most `nodeAgent.maxCertificateLifetime`: a certificate cannot be revoked, and the signer
 * treats expirationSeconds as a maximum and gives its own default (a year in the
 * kube-controller-manager) when it is unset, so an unset one is refused too
 * (https://kubernetes.io/docs/reference/access-authn-authz/certificate-signing-requests/#request-signing-process).
 * Who may ask:
 * - a bootstrap token, for a node that is not registered yet (a new machine), once: a token that
 *   already got an identity gets no second one, for another node or the same, and no bootstrap
 *   token gets the identity of a node whose identity was already issued (a second approval would
 *   start its bootstrap window again, docs/security.md);
 * - the identity itself, renewing, while its Node exists;
 * - the v1.91 ServiceAccounts (the agent's shared one, the legacy downloader's), for a node that is
 *   registered: running nodes switching to their own identity.
 * Anyone else is denied. Requests for other signers or subjects are not ours: ignored.
 */
import {
  isNodeName,
  NODE_AGENT_GROUP,
  NODE_AGENT_LEGACY_SERVICE_ACCOUNTS,
  nodeAgentUserName,
} from '../../api/index.js';
import { BOOTSTRAP_USER_PREFIX, type NodeAgentCsr } from '../../seed/node-identity/node-agent-csr.js';

export const ALLOWED_USAGES = ['digital signature', 'key encipherment', 'client auth'];

export type CsrDecision =
  | { readonly action: 'ignore'; readonly why: string }
  | { readonly action: 'approve'; readonly why: string }
  | { readonly action: 'deny'; readonly why: string };

export interface CsrWorld {
  /** Whether a Node of this name exists in the shoot. */
  nodeExists(name: string): boolean;
  /** The nodes for which requests of this requester were approved before (other requests). */
  approvedNodesOf(requester: string, except: string): readonly string[];
  /** The approved requests (other than `except`) for the identity of this node: name and requester. */
  approvedFor(node: string, except: string): readonly { readonly name: string; readonly requester: string }[];
  /** The longest lifetime approved (`nodeAgent.maxCertificateLifetime`), in seconds. */
  readonly maxExpirationSeconds: number;
}

function lifetimeProblem(csr: NodeAgentCsr, maxSeconds: number): string | undefined {
  if (csr.expirationSeconds === undefined)
    return `spec.expirationSeconds must be set (at most ${maxSeconds}): without it the signer issues its default lifetime`;
  if (csr.expirationSeconds > maxSeconds)
    return `spec.expirationSeconds ${csr.expirationSeconds} is more than the maximum ${maxSeconds} (nodeAgent.maxCertificateLifetime)`;
  return undefined;
}

function subjectProblem(csr: NodeAgentCsr): string | undefined {
  const { request } = csr;
  const orgs = request.subject.organizations;
  if (orgs.length !== 1 || orgs[0] !== NODE_AGENT_GROUP)
    return `the organization must be exactly ${NODE_AGENT_GROUP}, not [${orgs.join(', ')}]`;
  if (request.subject.others.length > 0)
    return `the subject may hold only CN and O, not ${request.subject.others.join(', ')}`;
  if (request.extensions.length > 0 || request.attributes.length > 0)
    return `the request may ask for no extensions or attributes (it asks for ${[...request.extensions, ...request.attributes].join(', ')})`;
  if (!request.signatureValid) return 'the request is not signed by the key it carries';
  if (!isNodeName(csr.node)) return `${csr.node} is not a valid Node name`;
  const extra = csr.usages.filter((u) => !ALLOWED_USAGES.includes(u));
  if (extra.length > 0 || !csr.usages.includes('client auth'))
    return `the usages must include client auth and only ${ALLOWED_USAGES.join(', ')} (got ${csr.usages.join(', ')})`;
  return undefined;
}

export function decideNodeAgentCsr(csr: NodeAgentCsr, world: CsrWorld): CsrDecision {
  if (csr.approved || csr.denied || csr.issued) return { action: 'ignore', why: 'already decided' };
  const problem = subjectProblem(csr) ?? lifetimeProblem(csr, world.maxExpirationSeconds);
  if (problem) return { action: 'deny', why: problem };
  const registered = world.nodeExists(csr.node);
  const identity = nodeAgentUserName(csr.node);
  if (csr.requester.startsWith(BOOTSTRAP_USER_PREFIX)) {
    if (registered)
      return {
        action: 'deny',
        why: `Node ${csr.node} is registered: a bootstrap token may ask only for the identity of a new machine`,
      };
    const others = world.approvedNodesOf(csr.requester, csr.name).filter((n) => n !== csr.node);
    if (others.length > 0)
      return {
        action: 'deny',
        why: `bootstrap token ${csr.requester} already got the identity of ${others.join(', ')}`,
      };
    const issued = world.approvedFor(csr.node, csr.name);
    if (issued.length > 0)
      return {
        action: 'deny',
        why: `the identity of ${csr.node} was already issued (${issued.map((c) => `${c.name} by ${c.requester}`).join(', ')}) and Node ${csr.node} is not registered: a bootstrap token gets one identity per machine, and only the identity itself renews it once its Node exists`,
      };
    return { action: 'approve', why: `a new machine's bootstrap token asks for the identity of ${csr.node}` };
  }
  if (csr.requester === identity) {
    return registered
      ? { action: 'approve', why: `${identity} renews its identity` }
      : { action: 'deny', why: `${identity} renews, but no Node ${csr.node} exists` };
  }
  if ((NODE_AGENT_LEGACY_SERVICE_ACCOUNTS as readonly string[]).includes(csr.requester)) {
    return registered
      ? { action: 'approve', why: `the node agent of running Node ${csr.node} switches to its own identity` }
      : {
          action: 'deny',
          why: `${csr.requester} may ask only for the identity of a registered Node, and ${csr.node} is not`,
        };
  }
  return { action: 'deny', why: `${csr.requester} may not ask for the identity of a node agent` };
}
