/** The token-labels controller against real seed and shoot API servers. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Secret,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { type Cluster, decodeCluster, parseYaml, shootAccessSecret } from '../../api/index.js';
import {
  addTokenLabelsController,
  type RunningTokenLabelsController,
} from '../../controllers/token-labels/add.js';
import { tokenLabelsMetrics } from '../../controllers/token-labels/metrics.js';
import {
  createTestNamespace,
  type Envtest,
  readAuditEvents,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { EventRecorder } from '../../runtime/events.js';
import { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { silentLogger } from '../../runtime/logging.js';
import { runtimeMetrics } from '../../runtime/metrics.js';
import type { ProcessContext } from '../../seed/manager/context.js';
import { shootAccessSecrets } from '../../seed/manager/seed-informers.js';
import { shootContext } from '../../seed/manager/shoots.js';

const ROLE = 'gardener.cloud/role';
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function exampleCluster(name: string): Cluster {
  const raw = parseYaml(readFileSync(join(import.meta.dirname, '../../examples/cluster.yaml'), 'utf8'));
  const decoded = decodeCluster(raw);
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
  return { ...decoded.value, name };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('token-labels controller against real API servers', function () {
  this.timeout(120_000);
  let seed: Envtest;
  let shoot: Envtest;
  let seedCore: CoreV1Api;
  let shootCore: CoreV1Api;
  let seedNs: string;
  let shootNs: string;
  let user: string;
  let controllerKubeConfig: KubeConfig;
  let env: ProcessContext;
  let shootHttp: KubeHttp;
  let cluster: Cluster;
  let running: RunningTokenLabelsController;
  let seedHttp: KubeHttp;
  const stop = new AbortController();

  const accessSecret = (name: string, target: string) =>
    shootAccessSecret({
      name,
      namespace: seedNs,
      targetSecretName: target,
      targetSecretNamespace: shootNs,
      tokenExpirationDuration: '720h',
    });

  async function createShootSecret(name: string, labels: Record<string, string> = {}): Promise<V1Secret> {
    return shootCore.createNamespacedSecret({
      namespace: shootNs,
      body: {
        metadata: { name, namespace: shootNs, labels },
        data: { token: b64(`token-of-${name}`), extra: b64('keep me') },
      },
    });
  }

  const read = (name: string) => shootCore.readNamespacedSecret({ name, namespace: shootNs });
  const labelled = async (name: string) => (await read(name)).metadata?.labels?.[ROLE] === 'access-token';

  before(async function () {
    this.timeout(20 * 60_000);
    [seed, shoot] = await Promise.all([startEnvtest({ name: 'seed' }), startEnvtest({ name: 'shoot' })]);
    seedCore = seed.kubeConfig.makeApiClient(CoreV1Api);
    shootCore = shoot.kubeConfig.makeApiClient(CoreV1Api);
    seedNs = await createTestNamespace(seed, 'shoot--tl');
    shootNs = await createTestNamespace(shoot, 'token-labels');
    user = `token-labels-controller-${shootNs}`;
    controllerKubeConfig = await shoot.kubeConfigForUser(user, ['system:masters']);
    seedHttp = new KubeHttp(seed.kubeConfig);
    shootHttp = new KubeHttp(controllerKubeConfig);
    cluster = exampleCluster(seedNs);
    env = {
      log: silentLogger,
      metrics: runtimeMetrics(new Registry()),
      recorder: new EventRecorder({ http: seedHttp, component: 'gardener-osc-test' }),
    };
  });

  after(async () => {
    stop.abort();
    await running?.stopped();
    await seedHttp?.close();
    await shootHttp?.close();
    for (const [core, namespace] of [
      [seedCore, seedNs],
      [shootCore, shootNs],
    ] as const) {
      if (!core || !namespace) continue;
      await core.deleteCollectionNamespacedSecret({ namespace }).catch(() => undefined);
      await core.deleteNamespace({ name: namespace }).catch(() => undefined);
    }
    const events = await seedCore
      ?.listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${seedNs}` })
      .catch(() => undefined);
    for (const e of events?.items ?? [])
      await seedCore
        .deleteNamespacedEvent({ name: e.metadata!.name!, namespace: 'default' })
        .catch(() => undefined);
  });

  it('labels the targets of shoot-access secrets once they exist, without touching data', async () => {
    for (const body of [
      accessSecret('gardener-node-agent', 'gardener-node-agent'),
      accessSecret('valitail', 'gardener-valitail'),
    ])
      await seedCore.createNamespacedSecret({ namespace: seedNs, body });
    // a token-requestor secret of the seed class is no access token in the shoot
    const seedClass = accessSecret('seed-only', 'not-a-target');
    seedClass.metadata.labels['resources.gardener.cloud/class'] = 'seed';
    await seedCore.createNamespacedSecret({ namespace: seedNs, body: seedClass });

    // the seed cache and the shoot context as the controller-manager gives them
    const seedCache = new ClusterCache({ name: 'seed', http: seedHttp });
    const shoot = shootContext({
      namespace: seedNs,
      cluster: () => cluster,
      http: shootHttp,
      log: silentLogger,
      signal: stop.signal,
    });
    running = addTokenLabelsController(shoot, env, shootAccessSecrets(seedCache));
    seedCache.start(stop.signal);
    await running.synced();
    expect([...running.targets().keys()]).to.deep.equal([
      `${shootNs}/gardener-node-agent`,
      `${shootNs}/gardener-valitail`,
    ]);

    const agent = await createShootSecret('gardener-node-agent', { app: 'x' });
    await createShootSecret('gardener-valitail');
    await createShootSecret('not-a-target');
    await createShootSecret('unrelated');
    await eventually(
      'both targets labelled',
      async () => (await labelled('gardener-node-agent')) && labelled('gardener-valitail'),
    );
    const after = await read('gardener-node-agent');
    expect(after.data).to.deep.equal(agent.data);
    expect(after.metadata?.labels).to.deep.equal({ app: 'x', [ROLE]: 'access-token' });
    expect(after.metadata?.annotations).to.equal(undefined);
    await sleep(500);
    expect((await read('unrelated')).metadata?.labels).to.equal(undefined);
    expect((await read('not-a-target')).metadata?.labels).to.equal(undefined);
    const metrics = tokenLabelsMetrics(env.metrics.registry);
    expect((await metrics.targets.get()).values).to.deep.equal([{ value: 2, labels: { shoot: seedNs } }]);
  });

  it('labels a target added later, also a secret that existed before', async () => {
    await seedCore.createNamespacedSecret({ namespace: seedNs, body: accessSecret('later', 'unrelated') });
    await eventually('the existing secret labelled', () => labelled('unrelated'));
    await seedCore.createNamespacedSecret({
      namespace: seedNs,
      body: accessSecret('extension', 'extension-token'),
    });
    await eventually('the new target watched', () => running.targets().has(`${shootNs}/extension-token`));
    await createShootSecret('extension-token');
    await eventually('the new secret labelled', () => labelled('extension-token'));
  });

  it('re-adds the label when it is removed by hand', async () => {
    await shootCore.patchNamespacedSecret(
      { name: 'gardener-valitail', namespace: shootNs, body: { metadata: { labels: { [ROLE]: null } } } },
      mergePatch,
    );
    await eventually('the label back', () => labelled('gardener-valitail'));
  });

  it('stops watching a secret that is no longer a target (and leaves its label)', async () => {
    await seedCore.deleteNamespacedSecret({ name: 'shoot-access-later', namespace: seedNs });
    await eventually('the target dropped', () => !running.targets().has(`${shootNs}/unrelated`));
    await shootCore.patchNamespacedSecret(
      { name: 'unrelated', namespace: shootNs, body: { metadata: { labels: { [ROLE]: null } } } },
      mergePatch,
    );
    await sleep(500);
    expect((await read('unrelated')).metadata?.labels ?? {}).to.not.have.property(ROLE);
    expect(await labelled('gardener-node-agent')).to.equal(true);
  });

  it('reports an unusable target as a Warning event on the Cluster', async () => {
    const bad = accessSecret('broken', 'Not_A_Name');
    await seedCore.createNamespacedSecret({ namespace: seedNs, body: bad });
    const event = await eventually('the Warning event', async () =>
      (
        await seedCore.listNamespacedEvent({
          namespace: 'default',
          fieldSelector: `involvedObject.name=${seedNs}`,
        })
      ).items.find((e) => e.reason === 'InvalidAccessTokenTarget'),
    );
    expect(event.type).to.equal('Warning');
    expect(event.involvedObject.kind).to.equal('Cluster');
    expect(event.message).to.match(
      /^secret shoot-access-broken: annotation token-requestor.resources.gardener.cloud\/target-secret-name /,
    );
  });

  it('in the shoot, reads only its target secrets, by name, and patches only them', async function () {
    if (!shoot.auditLogPath) this.skip();
    const requests = readAuditEvents(shoot).filter(
      (e) => e.user.username === user && (e.stage === 'ResponseComplete' || e.stage === 'ResponseStarted'),
    );
    expect(requests.length).to.be.greaterThan(0);
    const targets = ['gardener-node-agent', 'gardener-valitail', 'unrelated', 'extension-token'];
    for (const e of requests) {
      const url = new URL(e.requestURI, 'https://x');
      if (e.verb === 'patch') {
        const [, name] = /\/secrets\/([^/]+)$/.exec(url.pathname) ?? [];
        expect(url.pathname).to.equal(`/api/v1/namespaces/${shootNs}/secrets/${name}`);
        expect(targets).to.include(name);
      } else {
        expect(['list', 'watch']).to.include(e.verb);
        expect(url.pathname).to.equal(`/api/v1/namespaces/${shootNs}/secrets`);
        const selector = url.searchParams.get('fieldSelector') ?? '';
        expect(targets.map((t) => `metadata.name=${t}`)).to.include(selector);
      }
    }
  });
});
