/**
 * A plain HTTP server that answers a list and streams a watch the way the API server does (one
 * JSON event a line), driven by the test: the peer for the stream decoder and the heartbeat of
 * runtime/kube/list-watch.ts, where the exact bytes and their timing matter. Controllers are
 * tested against a real kube-apiserver; this only stands in for the wire.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WatchPeerHandlers {
  list(req: IncomingMessage): { resourceVersion: string; items: unknown[] };
  /** Writes the stream; the response stays open until this ends it (or the peer closes). */
  watch(res: ServerResponse, req: IncomingMessage): void | Promise<void>;
}

export class WatchPeer {
  readonly watchRequests: URL[] = [];
  private readonly open = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(handlers: WatchPeerHandlers): Promise<WatchPeer> {
    let peer: WatchPeer | undefined;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://peer');
      if (url.searchParams.get('watch') !== 'true') {
        const { resourceVersion, items } = handlers.list(req);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'List', metadata: { resourceVersion }, items }));
        return;
      }
      peer?.watchRequests.push(url);
      peer?.open.add(res);
      res.on('close', () => peer?.open.delete(res));
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.flushHeaders();
      res.socket?.setNoDelay(true);
      void Promise.resolve(handlers.watch(res, req)).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    peer = new WatchPeer(server, (server.address() as AddressInfo).port);
    return peer;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** One watch event as the API server writes it. */
export function eventLine(type: string, object: unknown): string {
  return `${JSON.stringify({ type, object })}\n`;
}

export function bookmarkLine(resourceVersion: string): string {
  return eventLine('BOOKMARK', { kind: 'Secret', apiVersion: 'v1', metadata: { resourceVersion } });
}
