/**
 * The first start of an agent with a per-node identity (its configuration names the kubeconfig
 * `credentials/kubeconfig`, which does not exist yet): it asks for its client certificate with the
 * credentials the machine has — the shared ServiceAccount token of an agent switching from the
 * v1.91 mode, the legacy downloader's token of a node migrating from it, or the machine's bootstrap
 * token — and writes the kubeconfig. The shared token is deleted afterwards: while valid it could
 * ask for any running node's identity, and the agent no longer needs it.
 */
import { rm, stat } from 'node:fs/promises';
import { type NodeAgentConfiguration, PATH } from '../../api/index.js';
import type { Clock } from '../../runtime/clock.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RestConfig } from '../../runtime/kube/rest-config.js';
import type { Logger } from '../../runtime/logging.js';
import { HostRoot } from '../applier/host-root.js';
import { requestNodeAgentCertificate } from './certificate-request.js';
import { writeIdentityKubeconfig } from './identity-kubeconfig.js';

/** What the agent may authenticate with to ask for its identity, in the order it tries them. */
export const IDENTITY_REQUEST_CREDENTIALS = [
  PATH.nodeAgentToken,
  PATH.downloaderToken,
  PATH.nodeAgentBootstrapToken,
] as const;

export interface ObtainIdentityOptions {
  readonly config: NodeAgentConfiguration;
  readonly root: string;
  readonly nodeName: string;
  readonly log: Logger;
  readonly signal?: AbortSignal;
  readonly pollIntervalMs?: number;
  readonly timeoutMs?: number;
  readonly clock?: Clock;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

export function caPemOf(config: NodeAgentConfiguration): string | undefined {
  const bundle = config.apiServer.caBundle;
  return bundle ? Buffer.from(bundle, 'base64').toString('utf8') : undefined;
}

export async function obtainNodeIdentity(o: ObtainIdentityOptions): Promise<void> {
  const host = new HostRoot(o.root);
  const server = o.config.apiServer.server;
  if (!server)
    throw new Error('apiServer.server is empty: there is no API server to ask for the node identity');
  let source: string | undefined;
  for (const candidate of IDENTITY_REQUEST_CREDENTIALS) {
    if (await exists(host.path(candidate))) {
      source = candidate;
      break;
    }
  }
  if (!source)
    throw new Error(
      `unable to request the node identity: none of ${IDENTITY_REQUEST_CREDENTIALS.join(', ')} exist`,
    );
  const caPem = caPemOf(o.config);
  const http = new KubeHttp(
    new RestConfig({ server, ca: caPem ? Buffer.from(caPem) : undefined, tokenFile: host.path(source) }),
  );
  // the clock's timers do not hold the process (background work must not keep a stopping agent
  // alive), but this wait is all the agent does at its first start: it holds the process itself
  const hold = setInterval(() => undefined, 60_000);
  try {
    o.log.info({ node: o.nodeName, credentials: source }, 'Requesting the node identity');
    const issued = await requestNodeAgentCertificate({
      client: new KubeClient(http),
      nodeName: o.nodeName,
      signal: o.signal,
      log: o.log,
      pollIntervalMs: o.pollIntervalMs,
      timeoutMs: o.timeoutMs,
      clock: o.clock,
    });
    await writeIdentityKubeconfig(host.path(PATH.nodeAgentKubeconfig), { server, caPem, ...issued });
    o.log.info({ node: o.nodeName, csr: issued.csrName }, 'Obtained the node identity');
  } finally {
    clearInterval(hold);
    await http.close();
  }
  if (source === PATH.nodeAgentToken) await rm(host.path(source), { force: true });
}
