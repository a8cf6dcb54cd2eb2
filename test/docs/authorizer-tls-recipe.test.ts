/**
 * docs/controller-manager.md's openssl recipe for the node agent authorizer's serving certificate:
 * the block after `<!-- authorizer-tls-recipe -->` runs as written, and what it makes is served over
 * HTTPS to a client that trusts only its ca.crt and asks for the authorizer Service's name, as a
 * shoot kube-apiserver does through the webhook kubeconfig (`manifests --shoot-authorization`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { AUTHORIZER_SERVICE } from '../../charts/controller-manager/controller-manager.js';
import { ROOT } from '../support/package-build.js';

function recipe(): string {
  const doc = readFileSync(join(ROOT, 'docs/controller-manager.md'), 'utf8');
  const m = /<!-- authorizer-tls-recipe -->\n```sh\n([\s\S]*?)```/.exec(doc);
  if (!m) throw new Error('docs/controller-manager.md: no authorizer-tls-recipe block');
  return m[1]!;
}

function get(port: number, host: string, ca: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, servername: host, headers: { host }, ca, path: '/', method: 'GET' },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('docs: the authorizer TLS recipe (openssl)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'osc-tls-recipe-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a CA and a serving certificate for the authorizer Service that a client trusting only the CA accepts', async () => {
    const script = recipe();
    expect(script).to.contain(`SVC=${AUTHORIZER_SERVICE}`);
    const r = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd: dir, encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const verify = spawnSync('openssl', ['verify', '-CAfile', 'ca.crt', 'tls.crt'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(verify.stdout.trim()).to.equal('tls.crt: OK');
    const ca = readFileSync(join(dir, 'ca.crt'));
    const server = createServer(
      { cert: readFileSync(join(dir, 'tls.crt')), key: readFileSync(join(dir, 'tls.key')) },
      (_req, res) => res.end('ok'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      for (const host of [
        `${AUTHORIZER_SERVICE}.garden.svc`,
        `${AUTHORIZER_SERVICE}.garden.svc.cluster.local`,
      ])
        expect(await get(port, host, ca), host).to.equal(200);
      // a name the certificate does not hold is refused
      const other = await get(port, `${AUTHORIZER_SERVICE}.other.svc`, ca).catch(
        (e: NodeJS.ErrnoException) => e.code,
      );
      expect(other).to.equal('ERR_TLS_CERT_ALTNAME_INVALID');
    } finally {
      server.close();
    }
  });
});
