/**
 * A few REST calls on the credentials of a client-node KubeConfig, with the body sent exactly as
 * given. client-node's generic KubernetesObjectApi re-serialises bodies through its typed models
 * (dropping what they do not know, turning `null` into nothing), which is wrong for merge patches
 * and apply intents; its dispatcher and authentication are reused here, so TLS material, tokens and
 * proxies behave as in every other client of the project.
 */
import { HttpMethod, type KubeConfig, RequestContext } from '@kubernetes/client-node';
import { fetch } from 'undici';
import { statusError } from '../../runtime/kube/kube-http.js';
import type { SetKind } from './object-set.js';

const PLURALS: Record<string, string> = {
  Secret: 'secrets',
  ServiceAccount: 'serviceaccounts',
  Role: 'roles',
  RoleBinding: 'rolebindings',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
};

/** `/api/v1[/namespaces/<ns>]/<plural>[/<name>]` or the `/apis/<group>/<version>` equivalent. */
export function resourcePath(kind: SetKind, namespace?: string, name?: string): string {
  const plural = PLURALS[kind.kind];
  if (!plural) throw new Error(`no resource path known for ${kind.kind}`);
  const base = kind.apiVersion.includes('/') ? `/apis/${kind.apiVersion}` : `/api/${kind.apiVersion}`;
  const ns = kind.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${plural}${name ? `/${encodeURIComponent(name)}` : ''}`;
}

export interface RestRequest {
  readonly method: 'GET' | 'PATCH' | 'DELETE' | 'POST' | 'PUT';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  readonly signal?: AbortSignal;
  /** Default 60 s. */
  readonly timeoutMs?: number;
}

export class Rest {
  private readonly server: string;

  constructor(readonly kubeConfig: KubeConfig) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
  }

  /** The decoded JSON response; non-2xx responses throw KubeStatusError (status, reason, message). */
  async request<T>(req: RestRequest): Promise<T> {
    const url = new URL(this.server + req.path);
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const ctx = new RequestContext(url.toString(), HttpMethod[req.method]);
    await this.kubeConfig.applySecurityAuthentication(ctx);
    const headers: Record<string, string> = { ...ctx.getHeaders(), accept: 'application/json' };
    if (req.body !== undefined) headers['content-type'] = req.contentType ?? 'application/json';
    const response = await fetch(url, {
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      dispatcher: ctx.getDispatcher() as never,
      signal: AbortSignal.any([
        AbortSignal.timeout(req.timeoutMs ?? 60_000),
        ...(req.signal ? [req.signal] : []),
      ]),
    });
    const text = await response.text();
    if (response.status < 200 || response.status >= 300) throw statusError(response.status, text);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
