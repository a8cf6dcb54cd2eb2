/**
 * A TCP proxy that can make connections die the way a lost NAT or load-balancer entry kills
 * them: silently. `freeze()` stops forwarding on every open connection without closing or
 * resetting it (both ends keep waiting), `blackhole(true)` accepts new connections and forwards
 * nothing on them either. TLS passes through untouched, so it sits in front of a real
 * kube-apiserver as well as a plain HTTP test peer.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

interface Pair {
  readonly client: Socket;
  readonly upstream?: Socket;
  frozen: boolean;
}

export class FreezingProxy {
  private readonly pairs = new Set<Pair>();
  private blackholed = false;
  /** Connections accepted so far (a re-opened watch is a new one). */
  connections = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<FreezingProxy> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    const proxy = new FreezingProxy(server, address.port);
    server.on('connection', (client) => proxy.accept(client, target));
    return proxy;
  }

  get url(): string {
    return `127.0.0.1:${this.port}`;
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    this.connections++;
    client.on('error', () => undefined);
    if (this.blackholed) {
      const pair: Pair = { client, frozen: true };
      this.pairs.add(pair);
      client.on('data', () => undefined);
      client.on('close', () => this.pairs.delete(pair));
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair: Pair = { client, upstream, frozen: false };
    this.pairs.add(pair);
    upstream.on('error', () => client.destroy());
    client.on('data', (d) => pair.frozen || upstream.write(d));
    upstream.on('data', (d) => pair.frozen || client.write(d));
    // A frozen connection never ends on its own: that is the point.
    client.on('close', () => {
      if (!pair.frozen) upstream.destroy();
      this.pairs.delete(pair);
    });
    upstream.on('close', () => pair.frozen || client.destroy());
  }

  /** Every open connection goes silent in both directions, without FIN or RST. */
  freeze(): void {
    for (const pair of this.pairs) pair.frozen = true;
  }

  /** New connections are accepted and then hear nothing (an unreachable path); false: normal again. */
  blackhole(on: boolean): void {
    this.blackholed = on;
  }

  get openConnections(): number {
    return this.pairs.size;
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
