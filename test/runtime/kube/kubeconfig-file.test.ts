import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringifyYaml, ValidationError } from '../../../api/index.js';
import { loadKubeconfigFile, restConfigFromKubeconfig } from '../../../runtime/kube/kubeconfig-file.js';
import type { HttpsOptions, RestConfig } from '../../../runtime/kube/rest-config.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function kubeconfig(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): string {
  return stringifyYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server: 'https://api.example:6443/', ...cluster } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx',
  });
}

async function httpsOptions(config: RestConfig): Promise<HttpsOptions> {
  const out: HttpsOptions = {};
  await config.applyToHTTPSOptions(out);
  return out;
}

describe('runtime/kube: kubeconfig files and RestConfig', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a token and inline CA: server without trailing slash, bearer header, verified TLS', async () => {
    const config = await restConfigFromKubeconfig(
      kubeconfig({ token: 'abc' }, { 'certificate-authority-data': b64('CA PEM'), 'tls-server-name': 'api' }),
      dir,
    );
    expect(config.getCurrentCluster().server).to.equal('https://api.example:6443');
    const o = await httpsOptions(config);
    expect(o.ca?.toString()).to.equal('CA PEM');
    expect(o).to.deep.include({ rejectUnauthorized: true, servername: 'api' });
    expect(o.headers).to.deep.equal({ authorization: 'Bearer abc' });
  });

  it('client certificate files relative to the kubeconfig; inline data wins over a file', async () => {
    mkdirSync(join(dir, 'pki'));
    writeFileSync(join(dir, 'pki', 'client.crt'), 'CERT FILE');
    writeFileSync(join(dir, 'pki', 'client.key'), 'KEY FILE');
    writeFileSync(join(dir, 'ca.crt'), 'CA FILE');
    const path = join(dir, 'kubeconfig');
    writeFileSync(
      path,
      kubeconfig(
        { 'client-certificate': 'pki/client.crt', 'client-key': join(dir, 'pki', 'client.key') },
        { 'certificate-authority': 'ca.crt' },
      ),
    );
    const o = await httpsOptions(await loadKubeconfigFile(path));
    expect([o.cert?.toString(), o.key?.toString(), o.ca?.toString()]).to.deep.equal([
      'CERT FILE',
      'KEY FILE',
      'CA FILE',
    ]);
    expect(o.headers).to.equal(undefined);
    const inline = await restConfigFromKubeconfig(
      kubeconfig({ 'client-certificate': 'missing.crt', 'client-certificate-data': b64('CERT DATA') }),
      dir,
    );
    expect((await httpsOptions(inline)).cert?.toString()).to.equal('CERT DATA');
  });

  it('reads a token file on every request, so a rotated token is used at once', async () => {
    writeFileSync(join(dir, 'token'), 'first\n');
    const config = await restConfigFromKubeconfig(kubeconfig({ tokenFile: 'token', token: 'static' }), dir);
    expect((await httpsOptions(config)).headers?.authorization).to.equal('Bearer first');
    writeFileSync(join(dir, 'token'), 'second');
    expect((await httpsOptions(config)).headers?.authorization).to.equal('Bearer second');
    writeFileSync(join(dir, 'token'), '  \n');
    await httpsOptions(config).then(
      () => expect.fail('an empty token file must not become an anonymous request'),
      (e: Error) => expect(e.message).to.contain('is empty'),
    );
  });

  it('basic auth and insecure-skip-tls-verify', async () => {
    const config = await restConfigFromKubeconfig(
      kubeconfig({ username: 'admin', password: 'secret' }, { 'insecure-skip-tls-verify': true }),
      dir,
    );
    const o = await httpsOptions(config);
    expect(o.rejectUnauthorized).to.equal(false);
    expect(o.headers?.authorization).to.equal(`Basic ${b64('admin:secret')}`);
  });

  it('errors name the field: auth providers, an exec plugin without apiVersion or command, a missing context, cluster or user, a missing server', async () => {
    const invalid = async (text: string, dirOf = dir) => {
      try {
        await restConfigFromKubeconfig(text, dirOf);
      } catch (e) {
        expect(e).to.be.instanceOf(ValidationError);
        return (e as Error).message;
      }
      return expect.fail('accepted an invalid kubeconfig');
    };
    expect(await invalid(kubeconfig({ 'auth-provider': { name: 'gcp' } }))).to.contain(
      'users[0].user.auth-provider',
    );
    expect(await invalid(kubeconfig({ exec: { command: 'x' } }))).to.contain('users[0].user.exec.apiVersion');
    expect(
      await invalid(kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '' } })),
    ).to.contain('users[0].user.exec.command');
    expect(await invalid(kubeconfig({}, { server: '' }))).to.contain('clusters[0].cluster.server');
    const other = (patch: Record<string, unknown>) =>
      stringifyYaml({
        clusters: [{ name: 'c', cluster: { server: 'https://s' } }],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'ctx',
        ...patch,
      });
    expect(await invalid(other({ 'current-context': 'nope' }))).to.contain('current-context');
    expect(await invalid(other({ contexts: [{ name: 'ctx', context: { cluster: 'x' } }] }))).to.contain(
      'no cluster named "x"',
    );
    expect(
      await invalid(other({ contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'y' } }] })),
    ).to.contain('no user named "y"');
  });

  it('a file that cannot be read or parsed names the file', async () => {
    const path = join(dir, 'broken');
    writeFileSync(path, 'clusters: []\n');
    await loadKubeconfigFile(path).then(
      () => expect.fail('accepted'),
      (e: Error) => expect(e.message).to.match(new RegExp(`^${path}: invalid kubeconfig`)),
    );
  });
});
