/**
 * How the agent asks its kubelet for `/configz` (kubernetes v1.34.4 pkg/kubelet/server/server.go),
 * by the credentials it has (docs/node-agent.md#in-effect):
 * - with the shared ServiceAccount token (the v1.91 mode), straight on the node's loopback: the
 *   kubelet authenticates the token with a TokenReview and authorizes `get nodes/configz` (or
 *   `nodes/proxy` before Kubernetes 1.33) with a SubjectAccessReview. The kubelet's serving
 *   certificate is not checked (issued for the node's name and IP by a CA the OSC does not carry),
 *   so the token goes to whatever listens on the kubelet's port, which on a node only root binds;
 * - with its per-node identity, through the shoot API server's node proxy
 *   (`/api/v1/nodes/<node>/proxy/configz`): the kubelet trusts only the CA of the API server's
 *   kubelet client certificate (its `clientCAFile`), not the one that issues node agent
 *   identities, and the node agent authorizer allows `get nodes/proxy` of the agent's own Node
 *   (controllers/node-agent-authorizer/decide.ts).
 */
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import type { KubeHttp } from '../../../../runtime/kube/kube-http.js';
import { KubeStatusError } from '../../../../runtime/kube/kube-http.js';

/**
 * The kubelet's configuration could not be asked for a reason that says nothing about the node
 * (the API server between them is unavailable). Not a failed apply: not judged.
 */
export class ConfigzNotJudged extends Error {}

/**
 * The kubelet (or the API server) refused the agent (401, 403): the shoot grants the agent no
 * `get nodes/configz`. Not a failed apply: the agent cannot tell, so it does not judge.
 */
export class ConfigzNotPermitted extends ConfigzNotJudged {}

/** The kubelet's `kubeletconfig` object, asked on its rendered port. */
export type ConfigzFetch = (port: number, signal: AbortSignal) => Promise<Record<string, unknown>>;

function kubeletConfigOf(body: string): Record<string, unknown> {
  const parsed = JSON.parse(body) as { kubeletconfig?: Record<string, unknown> };
  if (!parsed.kubeletconfig) throw new Error('the kubelet /configz has no kubeletconfig');
  return parsed.kubeletconfig;
}

const refused = (status: number | undefined) => status === 401 || status === 403;

/** GET https://<host>:<port>/configz with the bearer token of `tokenFile`. */
export function configzOverHttps(tokenFile: string, timeoutMs = 10_000, host = '127.0.0.1'): ConfigzFetch {
  return async (port, signal) => {
    const token = (await readFile(tokenFile, 'utf8')).trim();
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host,
          port,
          path: '/configz',
          headers: { authorization: `Bearer ${token}` },
          rejectUnauthorized: false,
          timeout: timeoutMs,
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (b: Buffer) => chunks.push(b));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const answer = `the kubelet answered /configz with ${res.statusCode}: ${text.trim().slice(0, 200)}`;
            if (res.statusCode === 200) resolve(text);
            else if (refused(res.statusCode)) reject(new ConfigzNotPermitted(answer));
            else reject(new Error(answer));
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`the kubelet did not answer /configz within ${timeoutMs} ms`)),
      );
      req.on('error', reject);
      req.end();
    });
    return kubeletConfigOf(body);
  };
}

/**
 * GET /api/v1/nodes/<node>/proxy/configz with the agent's API credentials. The API server finds
 * the kubelet's port in the Node's status, so the rendered port is not used. Only the kubelet's
 * own answer is judged: a refusal, an unavailable API server or one that cannot reach the kubelet
 * is not (a kubelet that is down fails the apply through its `/healthz` probe instead).
 */
export function configzThroughApiServer(
  http: Pick<KubeHttp, 'get'>,
  nodeName: () => string | undefined,
  timeoutMs = 10_000,
): ConfigzFetch {
  return async (_port, signal) => {
    const node = nodeName();
    if (!node) throw new ConfigzNotJudged('the agent does not know its Node yet');
    const path = `/api/v1/nodes/${encodeURIComponent(node)}/proxy/configz`;
    let body: string;
    try {
      const response = await http.get({
        path,
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      body = await response.body.text();
    } catch (e) {
      if (e instanceof KubeStatusError && refused(e.status))
        throw new ConfigzNotPermitted(`GET ${path}: ${e.message}`);
      if (signal.aborted) throw e;
      throw new ConfigzNotJudged(`GET ${path}: ${(e as Error).message}`);
    }
    return kubeletConfigOf(body);
  };
}
