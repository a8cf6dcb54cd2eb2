/** Where every command finds its cluster: explicit file, $KUBECONFIG, in-cluster, ~/.kube/config. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringifyYaml } from '../../../api/index.js';
import { loadRestConfig, NoClusterConfigError } from '../../../runtime/kube/load-rest-config.js';
import type { HttpsOptions, RestConfig } from '../../../runtime/kube/rest-config.js';

const kubeconfig = (server: string) =>
  stringifyYaml({
    clusters: [{ name: 'c', cluster: { server } }],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'ctx',
  });

async function httpsOptions(config: RestConfig): Promise<HttpsOptions> {
  const out: HttpsOptions = {};
  await config.applyToHTTPSOptions(out);
  return out;
}

describe('runtime/kube: loadRestConfig', () => {
  let dir: string;
  let sa: string;
  const inPod = { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'load-rest-config-'));
    sa = join(dir, 'serviceaccount');
    mkdirSync(join(dir, 'home', '.kube'), { recursive: true });
    writeFileSync(join(dir, 'home', '.kube', 'config'), kubeconfig('https://home'));
    writeFileSync(join(dir, 'explicit'), kubeconfig('https://explicit'));
    writeFileSync(join(dir, 'env'), kubeconfig('https://env'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const mountServiceAccount = (token = 'sa-token') => {
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), token);
    writeFileSync(join(sa, 'ca.crt'), 'SA CA');
  };
  const server = async (o: { kubeconfig?: string; env: NodeJS.ProcessEnv }) =>
    (await loadRestConfig({ ...o, serviceAccountDir: sa, home: join(dir, 'home') })).server;

  it("in controller-runtime's order: the given file, $KUBECONFIG, in-cluster, ~/.kube/config", async () => {
    mountServiceAccount();
    const env = { ...inPod, KUBECONFIG: join(dir, 'env') };
    expect(await server({ kubeconfig: join(dir, 'explicit'), env })).to.equal('https://explicit');
    expect(await server({ env })).to.equal('https://env');
    expect(await server({ env: inPod })).to.equal('https://10.0.0.1:443');
    expect(await server({ env: {} })).to.equal('https://home');
  });

  it('in-cluster: the mounted CA and token, the token read again for every request; IPv6 in brackets', async () => {
    mountServiceAccount('first');
    const config = await loadRestConfig({ env: inPod, serviceAccountDir: sa });
    const o = await httpsOptions(config);
    expect([o.ca?.toString(), o.headers?.authorization]).to.deep.equal(['SA CA', 'Bearer first']);
    writeFileSync(join(sa, 'token'), 'rotated');
    expect((await httpsOptions(config)).headers?.authorization).to.equal('Bearer rotated');
    const v6 = await loadRestConfig({
      env: { ...inPod, KUBERNETES_SERVICE_HOST: 'fd00::1' },
      serviceAccountDir: sa,
    });
    expect(v6.server).to.equal('https://[fd00::1]:443');
  });

  it('errors: nothing to load says where it looked; several $KUBECONFIG files are refused by name', async () => {
    const error = (env: NodeJS.ProcessEnv) =>
      loadRestConfig({ env, serviceAccountDir: sa, home: join(dir, 'nohome') }).then(
        () => expect.fail('accepted'),
        (e: Error) => e,
      );
    // a pod's environment without a mounted token is not in-cluster
    const none = await error(inPod);
    expect(none).to.be.instanceOf(NoClusterConfigError);
    expect(none.message).to.contain('$KUBECONFIG').and.to.contain('ServiceAccount');
    expect((await error({ KUBECONFIG: `${join(dir, 'env')}:${join(dir, 'explicit')}` })).message).to.contain(
      '$KUBECONFIG names 2 files',
    );
    expect((await error({ KUBECONFIG: join(dir, 'missing') })).message).to.contain('missing');
  });
});
