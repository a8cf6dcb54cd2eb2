/**
 * Asks the API server for the agent's client certificate: a fresh EC P-256 key (it never leaves
 * the node), a PKCS#10 request naming the node (`CN=gardener.cloud:node-agent:machine:<node>`,
 * `O=gardener.cloud:node-agents`), a CertificateSigningRequest for the API server's client signer,
 * then polling until the seed's approver and the signer have answered. The request's name derives
 * from the key, so a retried create finds its own request instead of making a second one.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import type { CsrObject } from '../../api/index.js';
import {
  KUBE_APISERVER_CLIENT_SIGNER,
  NODE_AGENT_CERTIFICATE_LIFETIME_SECONDS,
  NODE_AGENT_GROUP,
  nodeAgentUserName,
} from '../../api/index.js';
import { type Clock, realClock, sleep } from '../../runtime/clock.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type Logger, silentLogger } from '../../runtime/logging.js';
import { pem } from '../../runtime/pki/der.js';
import { createCertificationRequest } from '../../runtime/pki/pkcs10.js';
import { csrState } from './csr-state.js';

/** What the agent asks for: 30 days, as upstream; the signer may give less. */
export const CERTIFICATE_EXPIRATION_SECONDS = NODE_AGENT_CERTIFICATE_LIFETIME_SECONDS;
export const CSR_NAME_PREFIX = 'node-agent-csr-';

export interface CertificateRequestOptions {
  readonly client: Pick<KubeClient, 'create' | 'get'>;
  readonly nodeName: string;
  readonly expirationSeconds?: number;
  readonly pollIntervalMs?: number;
  /** How long approval and signing may take (default 15 minutes, as upstream). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly log?: Logger;
  readonly clock?: Clock;
}

export interface IssuedCertificate {
  readonly certificatePem: string;
  readonly keyPem: string;
  readonly csrName: string;
}

export class CertificateRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CertificateRequestError';
  }
}

export async function requestNodeAgentCertificate(o: CertificateRequestOptions): Promise<IssuedCertificate> {
  const log = o.log ?? silentLogger;
  const clock = o.clock ?? realClock;
  const keys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const request = createCertificationRequest(
    { commonName: nodeAgentUserName(o.nodeName), organizations: [NODE_AGENT_GROUP] },
    keys,
  );
  const spki = keys.publicKey.export({ type: 'spki', format: 'der' });
  const csrName = `${CSR_NAME_PREFIX}${createHash('sha256').update(spki).digest('hex').slice(0, 32)}`;
  const csr: CsrObject = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: csrName },
    spec: {
      request: Buffer.from(pem('CERTIFICATE REQUEST', request)).toString('base64'),
      signerName: KUBE_APISERVER_CLIENT_SIGNER,
      usages: ['digital signature', 'client auth'],
      expirationSeconds: o.expirationSeconds ?? CERTIFICATE_EXPIRATION_SECONDS,
    },
  };
  try {
    await o.client.create(RESOURCE.certificateSigningRequest, csr, { signal: o.signal });
  } catch (e) {
    if (!isApiStatus(e, 409)) throw e;
  }
  log.info({ csr: csrName, node: o.nodeName }, 'Requested a client certificate, waiting for approval');
  const deadline = clock.now() + (o.timeoutMs ?? 15 * 60_000);
  for (;;) {
    const live = await o.client.get<CsrObject>(
      RESOURCE.certificateSigningRequest,
      { name: csrName },
      o.signal,
    );
    const state = csrState(live);
    if (state.state === 'issued') {
      const keyPem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      return { certificatePem: state.certificatePem, keyPem, csrName };
    }
    if (state.state !== 'pending')
      throw new CertificateRequestError(
        `certificate signing request ${csrName} was ${state.state}: ${state.why}`,
      );
    if (clock.now() >= deadline)
      throw new CertificateRequestError(
        `certificate signing request ${csrName} was neither approved and signed nor denied in time`,
      );
    await sleep(clock, o.pollIntervalMs ?? 2_000, o.signal);
  }
}
