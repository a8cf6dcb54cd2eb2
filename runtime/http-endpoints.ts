/**
 * The process's HTTP endpoints: `/healthz` and `/readyz` (named checks, as controller-runtime
 * serves them: `[+]name ok` lines, 500 when one fails) and Prometheus `/metrics`. Port 0 picks a
 * free port, so many processes (tests, the demo) run side by side.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface HealthCheck {
  readonly name: string;
  /** Throws (or rejects) when unhealthy; the message is shown. */
  check(): void | Promise<void>;
}

export interface EndpointsOptions {
  readonly host?: string;
  readonly port: number;
  readonly healthz?: readonly HealthCheck[];
  readonly readyz?: readonly HealthCheck[];
  readonly registry?: Registry;
}

export interface RunningServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

async function runChecks(checks: readonly HealthCheck[]): Promise<{ ok: boolean; body: string }> {
  const lines: string[] = [];
  let ok = true;
  for (const c of checks) {
    try {
      await c.check();
      lines.push(`[+]${c.name} ok`);
    } catch (e) {
      ok = false;
      lines.push(`[-]${c.name} failed: ${(e as Error).message}`);
    }
  }
  lines.push(ok ? 'check passed' : 'check failed');
  return { ok, body: `${lines.join('\n')}\n` };
}

export const pingCheck: HealthCheck = { name: 'ping', check: () => undefined };

export function serveEndpoints(options: EndpointsOptions): Promise<RunningServer> {
  const routes: Record<string, readonly HealthCheck[] | undefined> = {
    '/healthz': options.healthz,
    '/readyz': options.readyz,
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const checks = routes[path];
    if (checks) {
      void runChecks(checks).then(({ ok, body }) => {
        res.writeHead(ok ? 200 : 500, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
      });
      return;
    }
    if (path === '/metrics' && options.registry) {
      const registry = options.registry;
      void registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (e: Error) => res.writeHead(500).end(e.message),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host || undefined, () => {
      const { port } = server.address() as AddressInfo;
      const host = options.host || '127.0.0.1';
      resolve({
        port,
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
