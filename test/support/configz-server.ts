/**
 * A stand-in for a kubelet's `/configz` over HTTPS (self-signed, as a kubelet's serving certificate
 * is to the agent): the status and body it answers are set by the test, and it records the
 * Authorization header it was sent. For the configz fetchers' tests; the real kubelet is asked in
 * test/real-node/real-kubelet.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ConfigzServer {
  readonly host: string;
  readonly port: number;
  status: number;
  body: string;
  readonly requests: { path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

function selfSignedCert(host: string): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'configz-cert-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${host}`].concat([
        '-addext',
        `subjectAltName=IP:${host}`,
        '-keyout',
        'key.pem',
        '-out',
        'cert.pem',
      ]),
      { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startConfigzServer(
  kubeletconfig: Record<string, unknown>,
  host = '127.0.0.1',
): Promise<ConfigzServer> {
  const server = createServer(selfSignedCert(host), (req, res) => {
    s.requests.push({ path: req.url ?? '', authorization: req.headers.authorization });
    if (req.url !== '/configz') res.writeHead(404).end('not found');
    else res.writeHead(s.status, { 'content-type': 'application/json' }).end(s.body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const s: ConfigzServer = {
    host,
    port: (server.address() as AddressInfo).port,
    status: 200,
    body: JSON.stringify({ kubeletconfig }),
    requests: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return s;
}
