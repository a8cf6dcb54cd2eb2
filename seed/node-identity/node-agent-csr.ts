/**
 * The CertificateSigningRequests of node agents as the seed reads them from the shoot cache: a
 * request for the API server's client signer whose subject names a node agent, with what the
 * approver judges (who asked, what the PKCS#10 request asks for, whether it is signed by its key)
 * and where it stands (approved, denied, issued). Parsed once per resourceVersion.
 */

import type { CsrObject } from '../../api/index.js';
import { KUBE_APISERVER_CLIENT_SIGNER, nodeOfNodeAgentUser } from '../../api/index.js';
import type { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import type { Informer } from '../../runtime/kube/informer.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { pemBlock } from '../../runtime/pki/der.js';
import { type ParsedCertificationRequest, parseCertificationRequest } from '../../runtime/pki/pkcs10.js';

export type { CsrCondition, CsrObject } from '../../api/index.js';

export interface NodeAgentCsr {
  readonly name: string;
  /** The node the requested subject names. */
  readonly node: string;
  /** Who created the request (`spec.username`, set by the API server). */
  readonly requester: string;
  readonly usages: readonly string[];
  /** `spec.expirationSeconds`: the lifetime asked for (the signer's default when undefined). */
  readonly expirationSeconds: number | undefined;
  readonly request: ParsedCertificationRequest;
  readonly approved: boolean;
  readonly denied: boolean;
  readonly issued: boolean;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  /**
   * When it was approved (the Approved condition's lastUpdateTime, else its creation), in
   * milliseconds since the epoch; undefined while it is not approved.
   */
  readonly approvedAt: number | undefined;
}

export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';

export function isFinal(csr: CsrObject): boolean {
  return (
    Boolean(csr.status?.certificate) ||
    (csr.status?.conditions ?? []).some(
      (c) => (c.type === 'Approved' || c.type === 'Denied' || c.type === 'Failed') && c.status !== 'False',
    )
  );
}

const condition = (csr: CsrObject, type: string) =>
  (csr.status?.conditions ?? []).some((c) => c.type === type && c.status !== 'False');

function approvedAt(csr: CsrObject, createdAt: number): number | undefined {
  const approval = (csr.status?.conditions ?? []).find((c) => c.type === 'Approved' && c.status !== 'False');
  if (!approval) return undefined;
  return Date.parse(approval.lastUpdateTime ?? '') || createdAt;
}

/**
 * The node agent request in `csr`; undefined when it is for another signer, does not parse, or
 * names no node agent (then it is not ours to judge).
 */
export function readNodeAgentCsr(csr: CsrObject): NodeAgentCsr | undefined {
  if (csr.spec?.signerName !== KUBE_APISERVER_CLIENT_SIGNER || !csr.spec.request) return undefined;
  const der = pemBlock(Buffer.from(csr.spec.request, 'base64').toString('latin1'), 'CERTIFICATE REQUEST');
  if (!der) return undefined;
  let request: ParsedCertificationRequest;
  try {
    request = parseCertificationRequest(der);
  } catch {
    return undefined;
  }
  const node = nodeOfNodeAgentUser(request.subject.commonName ?? '');
  if (!node) return undefined;
  const createdAt = Date.parse(csr.metadata?.creationTimestamp ?? '') || 0;
  return {
    name: csr.metadata?.name ?? '',
    node,
    requester: csr.spec.username ?? '',
    usages: csr.spec.usages ?? [],
    expirationSeconds: csr.spec.expirationSeconds,
    request,
    approved: condition(csr, 'Approved'),
    denied: condition(csr, 'Denied') || condition(csr, 'Failed'),
    issued: Boolean(csr.status?.certificate),
    createdAt,
    approvedAt: approvedAt(csr, createdAt),
  };
}

/** Every CertificateSigningRequest of the shoot (the approver and the authorizer share it). */
export function shootCsrs(cache: ClusterCache): Informer<CsrObject> {
  return cache.informer<CsrObject>({ resource: RESOURCE.certificateSigningRequest });
}

/**
 * The node agent requests of a shoot by name, kept current by the informer's events, so a
 * request's PKCS#10 is parsed once per change, not once per question.
 */
export class NodeAgentCsrIndex {
  private readonly byName = new Map<string, { resourceVersion: string; csr: NodeAgentCsr | undefined }>();

  constructor(private readonly informer: Informer<CsrObject>) {}

  /** The parsed request of this name, as the cache holds it now. */
  get(name: string): NodeAgentCsr | undefined {
    const live = this.informer.get(name);
    if (!live) {
      this.byName.delete(name);
      return undefined;
    }
    const resourceVersion = live.metadata?.resourceVersion ?? '';
    const known = this.byName.get(name);
    if (known && known.resourceVersion === resourceVersion) return known.csr;
    const csr = readNodeAgentCsr(live);
    this.byName.set(name, { resourceVersion, csr });
    return csr;
  }

  /** Every node agent request the cache holds. */
  list(): NodeAgentCsr[] {
    const out: NodeAgentCsr[] = [];
    const seen = new Set<string>();
    for (const live of this.informer.list()) {
      const name = live.metadata?.name ?? '';
      seen.add(name);
      const csr = this.get(name);
      if (csr) out.push(csr);
    }
    for (const name of this.byName.keys()) if (!seen.has(name)) this.byName.delete(name);
    return out;
  }
}
