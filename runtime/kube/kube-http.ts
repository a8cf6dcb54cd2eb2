/**
 * Raw HTTP to the API server on undici over kept-alive connections, with the TLS material and
 * credentials of a `RestConfig` or a client-node KubeConfig (through an HTTP proxy when the
 * cluster names one). Credentials are applied per request, so a token file that the agent rotates
 * on disk, or a shoot token the seed rotates in a secret, is picked up without a restart. Every
 * request of the project goes through here: `KubeClient`'s verbs and the informers' lists and
 * watches.
 */
import { Agent, type Dispatcher, ProxyAgent, request } from 'undici';
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
  private agent: Dispatcher | undefined;
  private agentKey = '';
  readonly server: string;
  private readonly proxyUrl: string | undefined;

  constructor(
    readonly kubeConfig: ClusterAccess,
    private readonly extraHeaders: Readonly<Record<string, string>> = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
    this.proxyUrl = cluster.proxyUrl || undefined;
    if (this.proxyUrl && !/^https?:\/\//.test(this.proxyUrl))
      throw new Error(`proxy-url ${this.proxyUrl}: only http and https proxies are supported`);
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
      ...(opts.auth ? { authorization: `Basic ${Buffer.from(opts.auth).toString('base64')}` } : {}),
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

  private dispatcherFor(opts: HttpsOptions): Dispatcher {
    const key =
      [opts.ca, opts.cert, opts.key].map((b) => b?.toString('base64') ?? '').join('|') +
      `|${opts.rejectUnauthorized}|${opts.servername}`;
    if (this.agent && key === this.agentKey) return this.agent;
    void this.agent?.close();
    this.agentKey = key;
    const tls = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      rejectUnauthorized: opts.rejectUnauthorized ?? true,
      servername: opts.servername,
      keepAlive: true,
      keepAliveInitialDelay: 30_000,
    };
    this.agent = this.proxyUrl
      ? new ProxyAgent({ uri: this.proxyUrl, keepAliveTimeout: 30_000, requestTls: tls })
      : new Agent({ keepAliveTimeout: 30_000, connect: tls });
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
