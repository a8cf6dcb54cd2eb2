/**
 * The network path from a node to the shoot API server on this machine. A node has a private
 * network namespace with nothing but loopback (its ports never collide with this machine's or
 * another node's: sshd on 22, the kubelet's 10248, the agent's 2751/2752). Inside, a socket unit
 * listens on 127.0.0.1:<the API server's port> and hands each connection to systemd-socket-proxyd,
 * which forwards it to a unix socket bind-mounted from the host; this proxy, on the host, forwards
 * it to the API server. TLS is end to end: the node talks to https://127.0.0.1:<port>, a name the
 * API server's certificate holds, and nothing on the way reads the bytes.
 */
import { rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface UnixProxy {
  readonly socketPath: string;
  close(): Promise<void>;
}

export async function serveUnixProxy(socketPath: string, target: { host: string; port: number }) {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  rmSync(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  const proxy: UnixProxy = {
    socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return proxy;
}
