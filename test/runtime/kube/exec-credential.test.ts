/** Kubeconfig `exec` credential plugins: what the plugin is told, what its answer becomes, its errors. */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringifyYaml } from '../../../api/index.js';
import { ExecCredentialPlugin } from '../../../runtime/kube/exec-credential.js';
import { loadKubeconfigFile } from '../../../runtime/kube/kubeconfig-file.js';
import type { HttpsOptions } from '../../../runtime/kube/rest-config.js';

const V1 = 'client.authentication.k8s.io/v1';

/** A plugin script that records its invocation (count, env, args) and prints `answer`. */
function plugin(dir: string, answer: string, name = 'plugin.sh'): string {
  const path = join(dir, name);
  writeFileSync(join(dir, 'answer.json'), answer);
  writeFileSync(
    path,
    `#!/bin/sh
echo x >> "${dir}/calls"
printf '%s' "$KUBERNETES_EXEC_INFO" > "${dir}/exec-info"
printf '%s|%s' "$PLUGIN_VAR" "$*" > "${dir}/env-args"
cat "${dir}/answer.json"
`,
  );
  chmodSync(path, 0o755);
  return path;
}

const credential = (status: Record<string, unknown>, apiVersion = V1) =>
  JSON.stringify({ apiVersion, kind: 'ExecCredential', status });

describe('runtime/kube: exec credential plugins', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'exec-credential-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const calls = () => readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean).length;

  it('a kubeconfig exec user: the plugin (relative to the kubeconfig) gets its env, args and cluster; its token is the bearer', async () => {
    plugin(dir, credential({ token: 'from-plugin' }), 'get-token.sh');
    const path = join(dir, 'kubeconfig');
    writeFileSync(
      path,
      stringifyYaml({
        clusters: [{ name: 'c', cluster: { server: 'https://api:6443', 'tls-server-name': 'api' } }],
        users: [
          {
            name: 'u',
            user: {
              exec: {
                apiVersion: V1,
                command: './get-token.sh',
                args: ['--audience', 'seed'],
                env: [{ name: 'PLUGIN_VAR', value: 'v' }],
                provideClusterInfo: true,
              },
            },
          },
        ],
        contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'ctx',
      }),
    );
    const config = await loadKubeconfigFile(path);
    const out: HttpsOptions = {};
    await config.applyToHTTPSOptions(out);
    expect(out.headers?.authorization).to.equal('Bearer from-plugin');
    expect(readFileSync(join(dir, 'env-args'), 'utf8')).to.equal('v|--audience seed');
    expect(JSON.parse(readFileSync(join(dir, 'exec-info'), 'utf8'))).to.deep.equal({
      apiVersion: V1,
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: 'https://api:6443', 'tls-server-name': 'api' } },
    });
  });

  it('keeps the credentials until shortly before they expire, then runs the plugin again', async () => {
    let now = Date.parse('2026-01-01T10:00:00Z');
    plugin(dir, credential({ token: 't', expirationTimestamp: '2026-01-01T10:05:00Z' }));
    const p = new ExecCredentialPlugin(
      { apiVersion: V1, command: join(dir, 'plugin.sh') },
      undefined,
      () => now,
    );
    await Promise.all([p.credentials(), p.credentials()]);
    expect(calls()).to.equal(1);
    now = Date.parse('2026-01-01T10:04:00Z');
    await p.credentials();
    expect(calls()).to.equal(1);
    now = Date.parse('2026-01-01T10:04:55Z');
    await p.credentials();
    expect(calls()).to.equal(2);
  });

  it('a client certificate (PEM) instead of a token; without expiry the plugin runs once', async () => {
    plugin(
      dir,
      credential(
        { clientCertificateData: 'CERT PEM', clientKeyData: 'KEY PEM' },
        'client.authentication.k8s.io/v1beta1',
      ),
    );
    const p = new ExecCredentialPlugin({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      command: join(dir, 'plugin.sh'),
    });
    const c = await p.credentials();
    await p.credentials();
    expect([c.token, c.clientCertificate?.toString(), c.clientKey?.toString()]).to.deep.equal([
      undefined,
      'CERT PEM',
      'KEY PEM',
    ]);
    expect(calls()).to.equal(1);
  });

  it('errors name the plugin and what is wrong with its answer, and show the install hint when it fails', async () => {
    const error = async (answer: string, extra: Record<string, unknown> = {}) => {
      plugin(dir, answer);
      const p = new ExecCredentialPlugin({ apiVersion: V1, command: join(dir, 'plugin.sh'), ...extra });
      return p.credentials().then(
        () => expect.fail('accepted'),
        (e: Error) => e.message,
      );
    };
    expect(await error('not json')).to.match(/plugin\.sh: its output is not an ExecCredential/);
    expect(await error(credential({ token: 't' }, 'client.authentication.k8s.io/v1beta1'))).to.contain(
      'apiVersion: the kubeconfig asks for client.authentication.k8s.io/v1',
    );
    expect(await error(credential({}))).to.contain('status: neither token nor clientCertificateData');
    expect(await error(credential({ clientCertificateData: 'C' }))).to.contain('come together');
    expect(await error(credential({ token: 't', expirationTimestamp: 'soon' }))).to.contain(
      'status.expirationTimestamp: "soon" is not a time',
    );
    const missing = new ExecCredentialPlugin({
      apiVersion: V1,
      command: join(dir, 'no-such-plugin'),
      installHint: 'install it with: brew install no-such-plugin',
    });
    const message = await missing.credentials().then(
      () => expect.fail('accepted'),
      (e: Error) => e.message,
    );
    expect(message)
      .to.contain('no-such-plugin')
      .and.to.contain('install it with: brew install no-such-plugin');
  });
});
