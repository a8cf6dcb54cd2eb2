/**
/**
 * Raw HTTP to the API server over kept-alive connections (node:https), with the TLS material and
 * credentials of a `RestConfig` or a client-node KubeConfig (through an HTTP proxy when the
 * cluster names one). Credentials are applied per request, so a token file that the agent rotates
 * on disk, or a shoot token the seed rotates in a secret, is picked up without a restart. Every
 * request of the project goes through here: `KubeClient`'s verbs and the informers' lists and
 * watches.
 *
 * Node's own HTTP client, not undici: for the node agent's few requests undici costs about 25 MiB
 * of resident memory (its WebAssembly HTTP parser, compiled at the first request), a third of the
 * agent's idle footprint (docs/benchmarks.md).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { parseProxyUrl, TunnelingHttpAgent, TunnelingHttpsAgent } from './proxy-tunnel.js';
import type { ClusterAccess, HttpsOptions } from './rest-config.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A response body: read once, as text, JSON, chunks, or thrown away. */
export interface KubeResponseBody extends AsyncIterable<Buffer> {
  text(): Promise<string>;
  json(): Promise<unknown>;
  dump(): Promise<void>;
}

export interface KubeResponse {
  readonly statusCode: number;
  readonly body: KubeResponseBody;
}

/** Waiting this long for the response headers fails the request. */
export const HEADERS_TIMEOUT_MS = 30_000;
/** An idle kept-alive connection is closed after this long. */
export const KEEP_ALIVE_TIMEOUT_MS = 30_000;

function bodyOf(response: IncomingMessage): KubeResponseBody {
  const text = async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  return {
    [Symbol.asyncIterator]: () => response[Symbol.asyncIterator]() as AsyncIterator<Buffer>,
    text,
    json: async () => JSON.parse(await text()) as unknown,
    dump: async () => {
      try {
        for await (const _ of response);
      } catch {
        // nothing to read any more
      }
    },
  };
}

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
  private agent: HttpsAgent | HttpAgent | undefined;
  /** Agents replaced after a change of TLS material; their requests in flight end on their own. */
  private readonly retired = new Set<HttpsAgent | HttpAgent>();
  private agentKey = '';
  readonly server: string;
  private readonly proxyUrl: URL | undefined;

  constructor(
    readonly kubeConfig: ClusterAccess,
    private readonly extraHeaders: Readonly<Record<string, string>> = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
    this.proxyUrl = cluster.proxyUrl ? parseProxyUrl(cluster.proxyUrl) : undefined;
  }

  url(path: string, query: KubeRequest['query'] = {}): string {
    const u = new URL(this.server + path);
    for (const [k, v] of Object.entries(query))
      if (v !== undefined && v !== '') u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** GET with credentials; the caller consumes (or dumps) the body. Non-2xx responses throw KubeStatusError. */
  get(req: KubeRequest): Promise<KubeResponse> {
    return this.send('GET', req);
  }

  /** Any verb; a body is sent as JSON unless `contentType` names another JSON flavour (patches). */
  async send(
    method: HttpMethod,
    req: KubeRequest,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<KubeResponse> {
    const opts: HttpsOptions = {};
    await this.kubeConfig.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(opts.auth ? { authorization: `Basic ${Buffer.from(opts.auth).toString('base64')}` } : {}),
      ...opts.headers,
      ...this.extraHeaders,
    };
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    if (payload) {
      headers['content-type'] = contentType;
      headers['content-length'] = String(payload.length);
    }
    const response = await this.exchange(
      new URL(this.url(req.path, req.query)),
      method,
      headers,
      payload,
      opts,
      req,
    );
    const result = { statusCode: response.statusCode ?? 0, body: bodyOf(response) };
    if (result.statusCode >= 200 && result.statusCode < 300) return result;
    const text = await result.body.text().catch(() => '');
    throw statusError(result.statusCode, text);
  }

  /** One request: fails when the headers take longer than HEADERS_TIMEOUT_MS or the body stalls. */
  private exchange(
    url: URL,
    method: HttpMethod,
    headers: Record<string, string>,
    payload: Buffer | undefined,
    opts: HttpsOptions,
    req: KubeRequest,
  ): Promise<IncomingMessage> {
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const request = send(
        url,
        { method, headers, agent: this.agentFor(url, opts), signal: req.signal },
        (response) => {
          clearTimeout(headersTimer);
          const bodyTimeout = req.bodyTimeoutMs ?? 60_000;
          if (bodyTimeout > 0)
            response.setTimeout(bodyTimeout, () =>
              response.destroy(new Error(`${method} ${url.pathname}: no data for ${bodyTimeout} ms`)),
            );
          else response.socket.setTimeout(0);
          resolve(response);
        },
      );
      const headersTimer = setTimeout(
        () =>
          request.destroy(
            new Error(`${method} ${url.pathname}: no response within ${HEADERS_TIMEOUT_MS} ms`),
          ),
        HEADERS_TIMEOUT_MS,
      );
      request.once('error', (error) => {
        clearTimeout(headersTimer);
        reject(error);
      });
      request.end(payload);
    });
  }

  async getJson<T>(req: KubeRequest): Promise<T> {
    const response = await this.get(req);
    return (await response.body.json()) as T;
  }

  /** Closes every connection, watches included. */
  async close(): Promise<void> {
    for (const agent of [this.agent, ...this.retired]) agent?.destroy();
    this.retired.clear();
    this.agent = undefined;
  }

  private agentFor(url: URL, opts: HttpsOptions): HttpsAgent | HttpAgent {
    const key =
      `${url.protocol}|` +
      [opts.ca, opts.cert, opts.key].map((b) => b?.toString('base64') ?? '').join('|') +
      `|${opts.rejectUnauthorized}|${opts.servername}`;
    if (this.agent && key === this.agentKey) return this.agent;
    // requests in flight on the old agent finish on their connections, idle ones time out
    if (this.agent) this.retired.add(this.agent);
    this.agentKey = key;
    const keepAlive = { keepAlive: true, keepAliveMsecs: 30_000, timeout: KEEP_ALIVE_TIMEOUT_MS };
    const tls = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      rejectUnauthorized: opts.rejectUnauthorized ?? true,
      servername: opts.servername,
    };
    const proxy = this.proxyUrl;
    if (url.protocol === 'http:')
      this.agent = proxy ? new TunnelingHttpAgent(proxy, keepAlive) : new HttpAgent(keepAlive);
    else
      this.agent = proxy
        ? new TunnelingHttpsAgent(proxy, { ...keepAlive, ...tls })
        : new HttpsAgent({ ...keepAlive, ...tls });
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
