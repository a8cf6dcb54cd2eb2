/**
 * The direct-mode token-requestor against two real API servers: seed access secrets in the seed,
 * ServiceAccounts, tokens and target secrets in the shoot. Tokens are checked with a TokenReview
 * on the shoot API server that issued them.
 */
import {
  AuthenticationV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1Secret,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { parseRfc3339, shootAccessSecret } from '../../api/index.js';
import { type RunningTokenRequestor, startTokenRequestor } from '../../controllers/token-requestor/index.js';
import { createTestNamespace, type Envtest, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { EventRecorder } from '../../runtime/events.js';
import { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { silentLogger } from '../../runtime/logging.js';
import { runtimeMetrics } from '../../runtime/metrics.js';
import { shootAccessSecrets } from '../../seed/manager/seed-informers.js';

const RENEW = 'serviceaccount.resources.gardener.cloud/token-renew-timestamp';
const H = 3600 * 1000;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function jwtClaims(token: string): { iat: number; exp: number; sub: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

const renewAt = (s: V1Secret) => {
  const text = s.metadata?.annotations?.[RENEW];
  if (!text) return undefined;
  const t = parseRfc3339(text);
  return t.epochSeconds * 1000;
};

// Upstream: gardener v1.91.4 pkg/controller/tokenrequestor/reconciler.go.
describe('token-requestor in direct mode against a real seed and shoot', function () {
  this.timeout(120_000);
  let seed: Envtest;
  let shoot: Envtest;
  let seedCore: CoreV1Api;
  let shootCore: CoreV1Api;
  let seedHttp: KubeHttp;
  let shootHttp: KubeHttp;
  let seedNs: string;
  let otherNs: string;
  let shootNs: string;
  let running: RunningTokenRequestor;
  let otherReachable = false;
  const registry = new Registry();
  const stop = new AbortController();

  const accessSecret = (name: string, expiration: string, namespace = seedNs) => {
    const s = shootAccessSecret({
      name,
      namespace,
      serviceAccountName: name,
      targetSecretName: name,
      targetSecretNamespace: shootNs,
      tokenExpirationDuration: expiration,
    });
    s.metadata.annotations['serviceaccount.resources.gardener.cloud/namespace'] = shootNs;
    return s;
  };
  const readSeed = (name: string, namespace = seedNs) => seedCore.readNamespacedSecret({ name, namespace });
  const readTarget = (name: string) => shootCore.readNamespacedSecret({ name, namespace: shootNs });
  const tokenOf = async (name: string) => {
    const data = (await readTarget(name).catch(() => undefined))?.data?.token;
    return data ? Buffer.from(data, 'base64').toString('utf8') : undefined;
  };
  const review = async (token: string) =>
    (
      await shoot.kubeConfig
        .makeApiClient(AuthenticationV1Api)
        .createTokenReview({ body: { spec: { token } } })
    ).status;

  before(async function () {
    this.timeout(20 * 60_000);
    [seed, shoot] = await Promise.all([startEnvtest({ name: 'seed' }), startEnvtest({ name: 'shoot' })]);
    seedCore = seed.kubeConfig.makeApiClient(CoreV1Api);
    shootCore = shoot.kubeConfig.makeApiClient(CoreV1Api);
    seedNs = await createTestNamespace(seed, 'shoot--tr');
    otherNs = await createTestNamespace(seed, 'shoot--tr-other');
    shootNs = await createTestNamespace(shoot, 'token-requestor');
    seedHttp = new KubeHttp(seed.kubeConfig);
    shootHttp = new KubeHttp(shoot.kubeConfig);
    const shootClient = new KubeClient(shootHttp);
    // the seed cache's shoot-access secrets, as the controller-manager shares them
    const cache = new ClusterCache({ name: 'seed', http: seedHttp });
    running = startTokenRequestor(
      {
        secrets: shootAccessSecrets(cache),
        seed: new KubeClient(seedHttp),
        shoot: (namespace) =>
          namespace === seedNs || (namespace === otherNs && otherReachable) ? shootClient : undefined,
        namespaces: [seedNs, otherNs],
        log: silentLogger,
        metrics: runtimeMetrics(registry),
        recorder: new EventRecorder({ http: seedHttp, component: 'gardener-osc-test' }),
      },
      stop.signal,
    );
    cache.start(stop.signal);
    await running.synced();
  });

  after(async () => {
    stop.abort();
    await running?.stopped();
    await seedHttp?.close();
    await shootHttp?.close();
    for (const [core, namespace] of [
      [seedCore, seedNs],
      [seedCore, otherNs],
      [shootCore, shootNs],
    ] as const) {
      if (!core || !namespace) continue;
      await core.deleteCollectionNamespacedSecret({ namespace }).catch(() => undefined);
      await core.deleteCollectionNamespacedServiceAccount({ namespace }).catch(() => undefined);
      await core.deleteCollectionNamespacedEvent({ namespace }).catch(() => undefined);
      await core.deleteNamespace({ name: namespace }).catch(() => undefined);
    }
  });

  it('creates the ServiceAccount, writes a real token and sets the renew timestamp ~80 % ahead', async () => {
    // the target exists with more data and a label: both must survive
    await shootCore.createNamespacedSecret({
      namespace: shootNs,
      body: {
        metadata: { name: 'gardener-node-agent', namespace: shootNs, labels: { keep: 'me' } },
        data: { other: Buffer.from('x').toString('base64') },
      },
    });
    const started = Date.now();
    await seedCore.createNamespacedSecret({
      namespace: seedNs,
      body: accessSecret('gardener-node-agent', '720h'),
    });
    const token = await eventually('the token in the target secret', () => tokenOf('gardener-node-agent'));
    const seedSecret = await eventually('the renew timestamp', async () => {
      const s = await readSeed('shoot-access-gardener-node-agent');
      return renewAt(s) ? s : undefined;
    });

    const sa = await shootCore.readNamespacedServiceAccount({
      name: 'gardener-node-agent',
      namespace: shootNs,
    });
    expect(sa.automountServiceAccountToken).to.equal(false);
    const status = await review(token);
    expect(status?.authenticated).to.equal(true);
    expect(status?.user?.username).to.equal(`system:serviceaccount:${shootNs}:gardener-node-agent`);
    const claims = jwtClaims(token);
    expect(claims.exp - claims.iat).to.equal(720 * 3600);

    // 720h is capped at 24h: renew after 80 % (+ up to 5 % jitter) of 24 h, in whole seconds
    const at = renewAt(seedSecret)!;
    expect(at).to.be.at.least(started + 0.8 * 24 * H - 1000);
    expect(at).to.be.at.most(Date.now() + 0.84 * 24 * H);
    expect(seedSecret.data?.token, 'no token in the seed secret').to.equal(undefined);

    const target = await readTarget('gardener-node-agent');
    expect(target.metadata?.labels).to.deep.equal({ keep: 'me' });
    expect(Object.keys(target.data ?? {}).sort()).to.deep.equal(['other', 'token']);
    const requested = await registry.getSingleMetricAsString(
      'gardener_osc_token_requestor_tokens_requested_total',
    );
    expect(requested, 'exactly one token: no second request from a stale cache').to.match(/_total 1$/m);

    // nothing happens while the renew time lies ahead
    await sleep(1500);
    expect(await tokenOf('gardener-node-agent')).to.equal(token);
  });

  it('rotates the token once the renew timestamp has passed', async () => {
    const before = await tokenOf('gardener-node-agent');
    expect(before).to.be.a('string');
    await sleep(1100); // a new token issued within the same second could be identical
    await seedCore.patchNamespacedSecret(
      {
        name: 'shoot-access-gardener-node-agent',
        namespace: seedNs,
        body: { metadata: { annotations: { [RENEW]: '2020-01-01T00:00:00Z' } } },
      },
      mergePatch,
    );
    const after = await eventually('a new token', async () => {
      const t = await tokenOf('gardener-node-agent');
      return t && t !== before ? t : undefined;
    });
    expect((await review(after))?.authenticated).to.equal(true);
    const s = await eventually('a new renew timestamp', async () => {
      const secret = await readSeed('shoot-access-gardener-node-agent');
      return (renewAt(secret) ?? 0) > Date.now() ? secret : undefined;
    });
    expect(renewAt(s)).to.be.above(Date.now() + 19 * H);
  });

  it('requests at least the API minimum of 600 s and creates a missing target secret as Opaque', async () => {
    const started = Date.now();
    await seedCore.createNamespacedSecret({ namespace: seedNs, body: accessSecret('short', '5m') });
    const token = await eventually('the token of the short-lived secret', () => tokenOf('short'));
    const claims = jwtClaims(token);
    expect(claims.exp - claims.iat).to.equal(600);
    const target = await readTarget('short');
    expect(target.type).to.equal('Opaque');
    expect(target.metadata?.labels ?? {}).to.deep.equal({});
    const seedSecret = await eventually('the renew timestamp', async () => {
      const s = await readSeed('shoot-access-short');
      return renewAt(s) ? s : undefined;
    });
    const at = renewAt(seedSecret)!;
    expect(at).to.be.at.least(started + 480_000 - 1000);
    expect(at).to.be.at.most(Date.now() + 504_000);
  });

  it('skips secrets whose shoot it cannot reach until resynced, and reports failures as events', async () => {
    await seedCore.createNamespacedSecret({
      namespace: otherNs,
      body: accessSecret('later', '1h', otherNs),
    });
    await sleep(1500);
    expect(renewAt(await readSeed('shoot-access-later', otherNs))).to.equal(undefined);
    expect(await tokenOf('later')).to.equal(undefined);
    otherReachable = true;
    running.resync(otherNs);
    await eventually('the token once the shoot is reachable', () => tokenOf('later'));

    const broken = accessSecret('broken', '1h');
    broken.metadata.annotations['serviceaccount.resources.gardener.cloud/token-expiration-duration'] = '30d';
    await seedCore.createNamespacedSecret({ namespace: seedNs, body: broken });
    const event = await eventually('a Warning event on the seed secret', async () => {
      const events = await seedCore.listNamespacedEvent({
        namespace: seedNs,
        fieldSelector: 'involvedObject.name=shoot-access-broken',
      });
      return events.items.find((e) => e.type === 'Warning');
    });
    expect(event.reason).to.equal('TokenRequestFailed');
    expect(event.message).to.contain('token-expiration-duration');
    expect(event.involvedObject.kind).to.equal('Secret');
  });
});
