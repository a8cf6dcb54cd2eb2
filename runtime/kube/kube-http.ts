/**
 * Raw HTTP to the API server on undici over kept-alive connections, with the TLS material and
 * credentials of a `RestConfig` or a client-node KubeConfig. Credentials are applied per request,
 * so a token file that the agent rotates on disk is picked up without a restart. Used for lists and
 * long-running watches, which client-node's Watch handles badly (it aborts a quiet stream after
 * 30 s), and by `KubeClient` for everything the node agent writes.
 */
import { Agent, type Dispatcher, request } from 'undici';
import type { ClusterAccess, HttpsOptions } from './rest-config.js';

export class KubeStatusError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'KubeStatusError';
  }
}

export interface KubeRequest {
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly signal?: AbortSignal;
  /** 0 disables the timeout between body chunks (watches). */
  readonly bodyTimeoutMs?: number;
}

export class KubeHttp {
  private agent: Agent | undefined;
  private agentKey = '';
  readonly server: string;

  constructor(
    readonly kubeConfig: ClusterAccess,
    private readonly extraHeaders: Readonly<Record<string, string>> = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
  }

  url(path: string, query: KubeRequest['query'] = {}): string {
    const u = new URL(this.server + path);
    for (const [k, v] of Object.entries(query))
      if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** GET with credentials; the caller consumes (or dumps) the body. Non-2xx responses throw KubeStatusError. */
  get(req: KubeRequest): Promise<Dispatcher.ResponseData> {
    return this.send('GET', req);
  }

  /** Any verb; a body is sent as JSON unless `contentType` names another JSON flavour (patches). */
  async send(
    method: Dispatcher.HttpMethod,
    req: KubeRequest,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<Dispatcher.ResponseData> {
    const opts: HttpsOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...opts.headers,
      ...this.extraHeaders,
    };
    if (body !== undefined) headers['content-type'] = contentType;
    const response = await request(this.url(req.path, req.query), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: this.dispatcherFor(opts),
      signal: req.signal,
      headersTimeout: 30_000,
      bodyTimeout: req.bodyTimeoutMs ?? 60_000,
    });
    if (response.statusCode >= 200 && response.statusCode < 300) return response;
    const text = await response.body.text().catch(() => '');
    throw statusError(response.statusCode, text);
  }

  async getJson<T>(req: KubeRequest): Promise<T> {
    const response = await this.get(req);
    return (await response.body.json()) as T;
  }

  async close(): Promise<void> {
    await this.agent?.close();
    this.agent = undefined;
  }

  private dispatcherFor(opts: HttpsOptions): Agent {
    const key =
      [opts.ca, opts.cert, opts.key].map((b) => b?.toString('base64') ?? '').join('|') +
      `|${opts.rejectUnauthorized}|${opts.servername}`;
    if (this.agent && key === this.agentKey) return this.agent;
    void this.agent?.close();
    this.agentKey = key;
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      connect: {
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        rejectUnauthorized: opts.rejectUnauthorized ?? true,
        servername: opts.servername,
        keepAlive: true,
        keepAliveInitialDelay: 30_000,
      },
    });
    return this.agent;
  }
}

export function statusError(status: number, body: string): KubeStatusError {
  try {
    const s = JSON.parse(body) as { reason?: string; message?: string };
    return new KubeStatusError(status, s.reason ?? '', s.message ?? `HTTP ${status}`);
  } catch {
    return new KubeStatusError(status, '', `HTTP ${status}: ${body.slice(0, 200)}`);
  }
}
