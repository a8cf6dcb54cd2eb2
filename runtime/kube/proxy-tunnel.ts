/**
 * Connections to the API server through the HTTP(S) proxy a kubeconfig's `proxy-url` names: every
 * connection is a CONNECT tunnel through the proxy, and TLS runs inside it end to end with the API
 * server, as Go's transport does for an https server. The proxy's own `user:password` goes into
 * `Proxy-Authorization`. A plain-http server is tunnelled the same way (Go would send it to the
 * proxy as an absolute-form request instead; an API server without TLS is a test's, not a
 * landscape's).
 *
 * Node's agents are asked for a connection through `createConnection(options, callback)`, which
 * may answer asynchronously: the tunnel is opened there, so pooling, keep-alive and timeouts stay
 * the agent's.
 */
import type { ClientRequestArgs } from 'node:http';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';

type Callback = (error: Error | null, stream: Duplex) => void;
type TunnelCallback = (error: Error | null, socket?: Duplex) => void;

/** Node's agent takes a failed connection as `callback(error)`; its typings want a stream too. */
function failed(callback: Callback | undefined, error: Error): void {
  (callback as ((error: Error) => void) | undefined)?.(error);
}

/** The proxy URL checked where the kubeconfig is read, so a bad one fails before any request. */
export function parseProxyUrl(proxyUrl: string): URL {
  let url: URL;
  try {
    url = new URL(proxyUrl);
  } catch {
    throw new Error(`proxy-url ${proxyUrl}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`proxy-url ${proxyUrl}: only http and https proxies are supported`);
  return url;
}

/** `host:port` of a connection's target, as CONNECT names it (IPv6 in brackets). */
export function connectTarget(host: string, port: number): string {
  return `${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`;
}

function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username && !proxy.password) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** Asks the proxy for a tunnel to `target`; the callback gets the tunnel's socket or why not. */
function openTunnel(proxy: URL, target: string, callback: TunnelCallback): void {
  const send = proxy.protocol === 'https:' ? httpsRequest : httpRequest;
  const request = send({
    host: proxy.hostname.replace(/^\[|\]$/g, ''),
    port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
    method: 'CONNECT',
    path: target,
    headers: { host: target, ...proxyAuthorization(proxy) },
    agent: false,
  });
  request.once('connect', (response, socket, head) => {
    if (response.statusCode !== 200) {
      socket.destroy();
      callback(
        new Error(
          `proxy ${proxy.host}: CONNECT ${target} answered ${response.statusCode} ${response.statusMessage ?? ''}`.trim(),
        ),
      );
      return;
    }
    if (head.length > 0) socket.unshift(head);
    callback(null, socket);
  });
  request.once('error', (error) =>
    callback(new Error(`proxy ${proxy.host}: ${error.message}`, { cause: error })),
  );
  request.end();
}

function targetOf(options: ClientRequestArgs, defaultPort: number): string {
  const host = options.host ?? options.hostname ?? 'localhost';
  return connectTarget(host, Number(options.port ?? defaultPort));
}

/** An https agent whose connections are TLS to the API server inside a CONNECT tunnel. */
export class TunnelingHttpsAgent extends HttpsAgent {
  constructor(
    private readonly proxy: URL,
    options: ConstructorParameters<typeof HttpsAgent>[0],
  ) {
    super(options);
  }

  override createConnection(options: ClientRequestArgs, callback?: Callback): Duplex | null | undefined {
    openTunnel(this.proxy, targetOf(options, 443), (error, socket) => {
      if (error || !socket) return failed(callback, error ?? new Error('no tunnel'));
      const tls = tlsConnect({ ...(options as object), socket });
      tls.once('close', () => socket.destroy());
      callback?.(null, tls);
    });
    return undefined;
  }
}

/** An http agent whose connections are CONNECT tunnels (a plain-http API server, in tests). */
export class TunnelingHttpAgent extends HttpAgent {
  constructor(
    private readonly proxy: URL,
    options: ConstructorParameters<typeof HttpAgent>[0],
  ) {
    super(options);
  }

  override createConnection(options: ClientRequestArgs, callback?: Callback): Duplex | null | undefined {
    openTunnel(this.proxy, targetOf(options, 80), (error, socket) => {
      if (error || !socket) return failed(callback, error ?? new Error('no tunnel'));
      callback?.(null, socket);
    });
    return undefined;
  }
}
