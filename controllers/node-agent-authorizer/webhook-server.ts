/**
 * The node agent authorizer's HTTPS endpoint: `POST /webhooks/auth/nodeagent/<shoot namespace>`
 * takes a SubjectAccessReview from that shoot's kube-apiserver (structured authorization
 * configuration, webhook authorizer) and answers with decide.ts's decision. One process serves
 * every selected shoot, so the path names the shoot. A shoot it does not know (yet) or whose
 * caches are not filled gets 503, which the API server's `failurePolicy: Deny` turns into a
 * denial: the authorizer fails closed, and an error is not cached as a decision. Only a caller
 * with that shoot's bearer token is answered (401 otherwise, before the body is read): the
 * decisions tell which Nodes exist, their pools and secret names, which are the shoot's own
 * business (charts/controller-manager/authorizer-caller-token.ts). The serving certificate and the
 * token key are read again when their files change.
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Counter, Histogram, type Registry } from 'prom-client';
import { nodeOfNodeAgentUser } from '../../api/index.js';
import { isAuthorizerCaller, readTokenKey } from '../../charts/controller-manager/authorizer-caller-token.js';
import type { Logger } from '../../runtime/logging.js';
import {
  type AccessReviewSpec,
  type Decision,
  decideNodeAgentAccess,
  type NodeAgentWorld,
} from './decide.js';

export const AUTHORIZER_PATH = '/webhooks/auth/nodeagent/';
const MAX_BODY_BYTES = 1 << 20;

export interface AuthorizerMetrics {
  readonly decisions: Counter<'decision' | 'resource'>;
  readonly duration: Histogram;
}

const byRegistry = new WeakMap<Registry, AuthorizerMetrics>();

export function authorizerMetrics(registry: Registry): AuthorizerMetrics {
  const existing = byRegistry.get(registry);
  if (existing) return existing;
  const metrics: AuthorizerMetrics = {
    decisions: new Counter({
      name: 'gardener_osc_node_agent_authorizer_decisions_total',
      help: 'Access reviews of node agent requests, by decision (allowed, denied, no_opinion, unavailable, unauthenticated) and resource',
      labelNames: ['decision', 'resource'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'gardener_osc_node_agent_authorizer_decision_duration_seconds',
      help: 'Time from a complete access review request to its answer',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1],
      registers: [registry],
    }),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/** A shoot the authorizer answers for. */
export interface AuthorizedShoot {
  /** False until the shoot's caches are filled. */
  readonly synced: () => boolean;
  readonly world: NodeAgentWorld;
  /** Reads a CertificateSigningRequest's requester live when the cache does not have it yet. */
  readonly liveCsrRequester?: (name: string) => Promise<string | undefined>;
  /** Reads the Node a pod is bound to live (an eviction by a node agent: drains are rare). */
  readonly livePodNode?: (namespace: string, name: string) => Promise<string | undefined>;
  /**
   * Whether to decide for the shoot now (default: always); while not, every review gets no
   * opinion, so the next authorizer decides (controllers/left-to-resource-manager.ts).
   */
  readonly acts?: () => boolean;
}

/** The answer for a shoot whose node agents another authorizer is responsible for. */
export const LEFT_TO_RESOURCE_MANAGER: Decision = {
  allowed: false,
  denied: false,
  reason:
    "this shoot's node agents are authorized by gardener-resource-manager (Gardener v1.150.0 contract; controllers.nodeAgentAuthorizer.inV150Mode is off)",
};

export interface AuthorizerServerOptions {
  readonly host?: string;
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  /** The key of the callers' bearer tokens (`nodeAgent.authorizer.tokenKeyFile`). */
  readonly tokenKeyFile: string;
  readonly shoot: (namespace: string) => AuthorizedShoot | undefined;
  readonly metrics: AuthorizerMetrics;
  readonly log: Logger;
  /** How often the serving certificate's files are checked for a change (default 60 s). */
  readonly certificateCheckMs?: number;
}

export interface RunningAuthorizerServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

interface ReviewRequest {
  readonly apiVersion?: string;
  readonly spec?: AccessReviewSpec;
}

function respond(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A CSR read that the cache cannot answer yet: the one a renewing agent has just created. */
function unknownCsrRead(spec: AccessReviewSpec, world: NodeAgentWorld): string | undefined {
  const a = spec.resourceAttributes;
  if (a?.group !== 'certificates.k8s.io' || a.resource !== 'certificatesigningrequests' || !a.name) return;
  if (a.verb === 'create' || world.csrRequester(a.name) !== undefined) return;
  return a.name;
}

/** The pod a node agent asks to evict, whose Node only a live read can tell. */
function evictedPod(spec: AccessReviewSpec): { namespace: string; name: string } | undefined {
  const a = spec.resourceAttributes;
  if (a?.group || a?.resource !== 'pods' || a.subresource !== 'eviction' || a.verb !== 'create') return;
  if (!a.namespace || !a.name || nodeOfNodeAgentUser(spec.user ?? '') === undefined) return;
  return { namespace: a.namespace, name: a.name };
}

async function decide(shoot: AuthorizedShoot, spec: AccessReviewSpec): Promise<Decision> {
  const pod = evictedPod(spec);
  if (pod && shoot.livePodNode) {
    const bound = await shoot.livePodNode(pod.namespace, pod.name);
    return decideNodeAgentAccess(spec, {
      ...shoot.world,
      podNode: (namespace, name) =>
        namespace === pod.namespace && name === pod.name ? bound : shoot.world.podNode(namespace, name),
    });
  }
  const csr = unknownCsrRead(spec, shoot.world);
  if (csr && shoot.liveCsrRequester) {
    const requester = await shoot.liveCsrRequester(csr);
    return decideNodeAgentAccess(spec, {
      ...shoot.world,
      csrRequester: (name) => (name === csr ? requester : shoot.world.csrRequester(name)),
    });
  }
  return decideNodeAgentAccess(spec, shoot.world);
}

function tlsFiles(o: AuthorizerServerOptions): {
  cert: Buffer;
  key: Buffer;
  tokenKey: Buffer;
  version: string;
} {
  const version = [o.certFile, o.keyFile, o.tokenKeyFile]
    .map((f) => `${statSync(f).mtimeMs}:${statSync(f).size}`)
    .join('|');
  return {
    cert: readFileSync(o.certFile),
    key: readFileSync(o.keyFile),
    tokenKey: readTokenKey(readFileSync(o.tokenKeyFile, 'utf8'), 'nodeAgent.authorizer.tokenKeyFile'),
    version,
  };
}

export async function serveNodeAgentAuthorizer(o: AuthorizerServerOptions): Promise<RunningAuthorizerServer> {
  let tls = tlsFiles(o);
  const server: Server = createServer({ cert: tls.cert, key: tls.key, keepAliveTimeout: 120_000 });
  server.on('request', (req, res) => {
    const started = process.hrtime.bigint();
    const url = req.url ?? '';
    if (req.method !== 'POST' || !url.startsWith(AUTHORIZER_PATH)) {
      respond(res, 404, { message: `only POST ${AUTHORIZER_PATH}<shoot namespace> is served` });
      return;
    }
    const namespace = decodeURIComponent(url.slice(AUTHORIZER_PATH.length).split('?')[0] ?? '');
    if (!isAuthorizerCaller(req.headers.authorization, tls.tokenKey, namespace)) {
      o.metrics.decisions.inc({ decision: 'unauthenticated', resource: '<unknown>' });
      o.log.info(
        { shoot: namespace, remote: req.socket.remoteAddress },
        'Refused an access review without the bearer token of its shoot',
      );
      respond(res, 401, { message: `only the kube-apiserver of shoot ${namespace} is answered here` });
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      void (async () => {
        let review: ReviewRequest;
        try {
          review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReviewRequest;
        } catch {
          respond(res, 400, { message: 'the body is not a JSON SubjectAccessReview' });
          return;
        }
        const resource = review.spec?.resourceAttributes?.resource ?? '<non-resource>';
        const shoot = o.shoot(namespace);
        const leftToResourceManager = shoot?.acts?.() === false;
        if (!leftToResourceManager && !shoot?.synced()) {
          o.metrics.decisions.inc({ decision: 'unavailable', resource });
          respond(res, 503, {
            message: `shoot ${namespace} is not served (yet): not selected, or caches not filled`,
          });
          return;
        }
        let decision: Decision;
        try {
          decision = leftToResourceManager
            ? LEFT_TO_RESOURCE_MANAGER
            : await decide(shoot!, review.spec ?? {});
        } catch (e) {
          o.metrics.decisions.inc({ decision: 'unavailable', resource });
          o.log.error({ err: e, shoot: namespace }, 'Deciding a node agent access review failed');
          respond(res, 500, { message: (e as Error).message });
          return;
        }
        const label = decision.allowed ? 'allowed' : decision.denied ? 'denied' : 'no_opinion';
        o.metrics.decisions.inc({ decision: label, resource });
        if (decision.denied)
          o.log.info(
            {
              shoot: namespace,
              user: review.spec?.user,
              attributes: review.spec?.resourceAttributes,
              reason: decision.reason,
            },
            'Denied a node agent request',
          );
        respond(res, 200, {
          apiVersion: review.apiVersion ?? 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          status: {
            allowed: decision.allowed,
            ...(decision.denied ? { denied: true } : {}),
            ...(decision.reason ? { reason: decision.reason } : {}),
          },
        });
        o.metrics.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host || undefined, () => resolve());
  });
  const reload = setInterval(() => {
    try {
      const next = tlsFiles(o);
      if (next.version === tls.version) return;
      server.setSecureContext({ cert: next.cert, key: next.key });
      tls = next;
      o.log.info('Reloaded the authorizer serving certificate and token key');
    } catch (e) {
      o.log.error(
        { err: e },
        'Reading the authorizer serving certificate or token key failed; keeping the previous ones',
      );
    }
  }, o.certificateCheckMs ?? 60_000);
  reload.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://${o.host || '127.0.0.1'}:${port}${AUTHORIZER_PATH}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(reload);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
