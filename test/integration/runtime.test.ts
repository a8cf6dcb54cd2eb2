/**
 * The envtest harness and runtime/ against a real kube-apiserver: the API semantics the
 * controllers rely on (409, selectors, server-side apply, RBAC with resourceNames, TokenRequest,
 * 410 relist, quiet watches) and the runtime pieces built on them.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  type ApiException,
  CoreV1Api,
  KubernetesObjectApi,
  RbacAuthorizationV1Api,
  type V1Secret,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import {
  createTestNamespace,
  type Envtest,
  envtestBinaries,
  readAuditEvents,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { EventRecorder } from '../../runtime/events.js';
import { Informer } from '../../runtime/kube/informer.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { LeaderElector } from '../../runtime/leader-election.js';
import { runtimeMetrics } from '../../runtime/metrics.js';

function secret(namespace: string, name: string, data: Record<string, string> = {}): V1Secret {
  return {
    metadata: { name, namespace },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

describe('envtest and runtime against a real kube-apiserver', function () {
  this.timeout(300_000);
  let env: Envtest;
  let core: CoreV1Api;
  let ns: string;
  const stop = new AbortController();

  before(async function () {
    // the first suite may build kube-apiserver and etcd from source (minutes on a fresh machine)
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'seed' });
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    ns = await createTestNamespace(env, 'runtime');
  });

  after(() => stop.abort());

  it('serves the pinned Kubernetes version, with our CRDs installed', async () => {
    expect(env.version.gitVersion).to.match(/^v1\.34\.\d+$/);
    const api = KubernetesObjectApi.makeApiClient(env.kubeConfig);
    const crd = await api.read({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'operatingsystemconfigs.extensions.gardener.cloud' },
    } as never);
    expect(crd.metadata?.name).to.equal('operatingsystemconfigs.extensions.gardener.cloud');
  });

  it('runs a second, independent API server side by side (seed and shoot)', async () => {
    const shoot = await startEnvtest({ name: 'shoot' });
    expect(shoot.server).not.to.equal(env.server);
    const shootCore = shoot.kubeConfig.makeApiClient(CoreV1Api);
    await shootCore.createNamespace({ body: { metadata: { name: `only-in-shoot-${ns}` } } });
    try {
      await core.readNamespace({ name: `only-in-shoot-${ns}` });
      expect.fail('the namespace leaked into the seed');
    } catch (e) {
      expect((e as ApiException<unknown>).code).to.equal(404);
    }
  });

  it('rejects an update with a stale resourceVersion with 409', async () => {
    const created = await core.createNamespacedSecret({
      namespace: ns,
      body: secret(ns, 'conflict', { a: '1' }),
    });
    await core.replaceNamespacedSecret({
      name: 'conflict',
      namespace: ns,
      body: { ...created, data: { a: 'Mg==' } },
    });
    try {
      await core.replaceNamespacedSecret({
        name: 'conflict',
        namespace: ns,
        body: { ...created, data: { a: 'Mw==' } },
      });
      expect.fail('stale update accepted');
    } catch (e) {
      expect((e as ApiException<unknown>).code).to.equal(409);
    }
  });

  it('records managed fields for server-side apply', async () => {
    const api = KubernetesObjectApi.makeApiClient(env.kubeConfig);
    const applied = await api.patch(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'ssa', namespace: ns },
        data: { k: 'v' },
      } as never,
      undefined,
      undefined,
      'gardener-osc-test',
      true,
      'application/apply-patch+yaml' as never,
    );
    const fields = (applied as { metadata?: { managedFields?: { manager?: string; operation?: string }[] } })
      .metadata?.managedFields;
    const managers = (fields ?? []).map((f) => `${f.manager}/${f.operation}`);
    expect(managers).to.include('gardener-osc-test/Apply');
  });

  it('an informer with a metadata.name field selector sees only that Secret, and its changes', async () => {
    await core.createNamespacedSecret({ namespace: ns, body: secret(ns, 'watched', { v: '1' }) });
    await core.createNamespacedSecret({ namespace: ns, body: secret(ns, 'other', { v: '1' }) });
    const informer = new Informer<V1Secret>({
      http: new KubeHttp(env.kubeConfig),
      path: `/api/v1/namespaces/${ns}/secrets`,
      fieldSelector: 'metadata.name=watched',
    });
    const seen: string[] = [];
    informer.on({
      add: (s) => seen.push(`add ${s.metadata?.name}`),
      update: (_o, s) => seen.push(`update ${s.metadata?.name}`),
      delete: (s) => seen.push(`delete ${s.metadata?.name}`),
    });
    const local = new AbortController();
    informer.start(local.signal);
    await informer.waitForSync();
    expect(informer.list().map((s) => s.metadata?.name)).to.deep.equal(['watched']);
    await core.replaceNamespacedSecret({
      name: 'other',
      namespace: ns,
      body: secret(ns, 'other', { v: '2' }),
    });
    await core.replaceNamespacedSecret({
      name: 'watched',
      namespace: ns,
      body: secret(ns, 'watched', { v: '2' }),
    });
    await core.deleteNamespacedSecret({ name: 'watched', namespace: ns });
    await eventually('update and delete', () => seen.length === 3);
    expect(seen).to.deep.equal(['add watched', 'update watched', 'delete watched']);
    local.abort();
    await informer.stopped();
  });

  it('relists after a real 410 Gone from the server', async () => {
    // Without the watch cache, watches are served by etcd, which the API server compacts every
    // 5 s (--etcd-compaction-interval): an old resourceVersion then gets a real 410.
    const raw = await startEnvtest({ name: 'no-watch-cache', watchCache: false });
    const rawCore = raw.kubeConfig.makeApiClient(CoreV1Api);
    await rawCore.createNamespacedSecret({ namespace: 'default', body: secret('default', 'relisted') });
    const http = new KubeHttp(raw.kubeConfig);
    const first = await http.getJson<{ metadata: { resourceVersion: string } }>({
      path: '/api/v1/namespaces/default/secrets',
    });
    const stale = first.metadata.resourceVersion;
    await eventually(
      'etcd compaction past the recorded resourceVersion',
      async () => {
        await rawCore.createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { generateName: 'churn-' } },
        });
        const r = await http.get({
          path: '/api/v1/namespaces/default/secrets',
          query: { watch: 'true', resourceVersion: stale, timeoutSeconds: 1 },
        });
        return /"code":410/.test(await r.body.text());
      },
      60_000,
    );
    const metrics = runtimeMetrics(new Registry());
    const informer = new Informer<V1Secret>({
      http,
      path: '/api/v1/namespaces/default/secrets',
      fieldSelector: 'metadata.name=relisted',
      resumeFromResourceVersion: stale,
      metrics,
    });
    const local = new AbortController();
    informer.start(local.signal);
    await informer.waitForSync();
    expect(informer.get('relisted', 'default')).to.not.equal(undefined);
    expect(informer.stats.lists).to.equal(1);
    const restarts = await metrics.registry.getSingleMetricAsString('gardener_osc_watch_restarts_total');
    expect(restarts).to.match(/reason="expired"\} 1\b/);
    local.abort();
    await informer.stopped();
    await raw.stop();
  });

  it('lets a ServiceAccount bound to one named Secret watch it by name, and denies another (403)', async () => {
    const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await core.createNamespacedSecret({ namespace: ns, body: secret(ns, 'mine', { token: 't' }) });
    await core.createNamespacedSecret({ namespace: ns, body: secret(ns, 'not-mine') });
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: 'one-secret' },
        rules: [
          {
            apiGroups: [''],
            resources: ['secrets'],
            resourceNames: ['mine'],
            verbs: ['get', 'list', 'watch'],
          },
        ],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'one-secret' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'one-secret' },
        subjects: [{ kind: 'ServiceAccount', name: 'agent', namespace: ns }],
      },
    });
    const agent = await env.kubeConfigForServiceAccount(ns, 'agent');
    const informer = new Informer<V1Secret>({
      http: new KubeHttp(agent),
      path: `/api/v1/namespaces/${ns}/secrets`,
      fieldSelector: 'metadata.name=mine',
    });
    const local = new AbortController();
    informer.start(local.signal);
    await informer.waitForSync();
    expect(informer.list().map((s) => s.metadata?.name)).to.deep.equal(['mine']);
    const agentCore = agent.makeApiClient(CoreV1Api);
    try {
      await agentCore.readNamespacedSecret({ name: 'not-mine', namespace: ns });
      expect.fail('read another secret');
    } catch (e) {
      expect((e as ApiException<unknown>).code).to.equal(403);
    }
    local.abort();
    await informer.stopped();
    const sa = `system:serviceaccount:${ns}:agent`;
    const byAgent = readAuditEvents(env).filter(
      (e) => e.user.username === sa && e.stage === 'ResponseComplete',
    );
    expect(byAgent.length, 'the audit log counts the agent requests').to.be.greaterThan(0);
  });

  it('mints client certificates for a user with groups', async () => {
    const kc = await env.kubeConfigForUser('alice', ['system:masters']);
    const ns2 = await kc.makeApiClient(CoreV1Api).readNamespace({ name: ns });
    expect(ns2.metadata?.name).to.equal(ns);
    const nobody = await env.kubeConfigForUser('bob');
    try {
      await nobody.makeApiClient(CoreV1Api).readNamespace({ name: ns });
      expect.fail('bob has no rights');
    } catch (e) {
      expect((e as ApiException<unknown>).code).to.equal(403);
    }
  });

  it('hands leadership over when the leader stops renewing, and at once when it releases', async () => {
    const client = new KubeClient(new KubeHttp(env.kubeConfig));
    const timing = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 300 };
    const leaders: string[] = [];
    const elector = (identity: string, releaseOnStop: boolean) =>
      new LeaderElector({
        client,
        namespace: ns,
        name: 'leader',
        identity,
        releaseOnStop,
        ...timing,
        onStartedLeading: () => {
          leaders.push(identity);
        },
      });
    const a = elector('a', false);
    const stopA = new AbortController();
    const runA = a.run(stopA.signal);
    await eventually('a leads', () => a.leading);
    const b = elector('b', true);
    const stopB = new AbortController();
    const runB = b.run(stopB.signal);
    await sleep(1_000);
    expect(b.leading, 'b must not lead while a renews').to.equal(false);
    const abandoned = Date.now();
    stopA.abort();
    await runA;
    await eventually('b takes over', () => b.leading, 10_000);
    expect(Date.now() - abandoned).to.be.greaterThan(timing.leaseDurationMs - 500);
    const c = elector('c', true);
    const stopC = new AbortController();
    const runC = c.run(stopC.signal);
    const released = Date.now();
    stopB.abort();
    await runB;
    await eventually('c takes over', () => c.leading, 10_000);
    expect(Date.now() - released, 'a released lease is taken without waiting').to.be.lessThan(
      timing.leaseDurationMs,
    );
    stopC.abort();
    await runC;
    expect(leaders).to.deep.equal(['a', 'b', 'c']);
  });

  it('records events and aggregates repeats', async () => {
    const recorder = new EventRecorder({ http: new KubeHttp(env.kubeConfig), component: 'test' });
    const object = { apiVersion: 'v1', kind: 'Secret', name: 'mine', namespace: ns };
    await recorder.event(object, 'Normal', 'Tested', 'the same message');
    await recorder.event(object, 'Normal', 'Tested', 'the same message');
    await recorder.event(object, 'Warning', 'Tested', 'another message');
    const events = (await core.listNamespacedEvent({ namespace: ns })).items.filter(
      (e) => e.reason === 'Tested',
    );
    expect(events.map((e) => `${e.type} ${e.count}`).sort()).to.deep.equal(['Normal 2', 'Warning 1']);
  });

  it('keeps a watch on a quiet stream open for 90 s without re-establishing it', async function () {
    this.timeout(150_000);
    await core.createNamespacedSecret({ namespace: ns, body: secret(ns, 'quiet') });
    const informer = new Informer<V1Secret>({
      http: new KubeHttp(env.kubeConfig),
      path: `/api/v1/namespaces/${ns}/secrets`,
      fieldSelector: 'metadata.name=quiet',
      // What this checks is the transport: no body or idle timeout cuts a quiet stream. The API
      // server sends a bookmark only once its watch cache's resourceVersion moved past the
      // watch's, which on a cluster where nothing is written may take minutes, so the bookmark
      // heartbeat (tested in watch-faults) is set beyond the window.
      heartbeatTimeoutMs: 150_000,
    });
    const updates: string[] = [];
    informer.on({ update: (_o, s) => updates.push(s.metadata?.resourceVersion ?? '') });
    const local = new AbortController();
    informer.start(local.signal);
    await informer.waitForSync();
    await sleep(90_000);
    expect(informer.stats.watchesOpened, 'watch requests opened').to.equal(1);
    await core.replaceNamespacedSecret({
      name: 'quiet',
      namespace: ns,
      body: secret(ns, 'quiet', { after: 'quiet' }),
    });
    await eventually('the update after 90 quiet seconds', () => updates.length === 1);
    expect(informer.stats.watchesOpened).to.equal(1);
    local.abort();
    await informer.stopped();
  });
});

describe('envtest supervisor', function () {
  this.timeout(60_000);

  it('kills the server when the process that started it is SIGKILLed', async () => {
    const bin = envtestBinaries();
    const script = `
      const { spawn } = require('node:child_process');
      const s = spawn(${JSON.stringify(join(bin, 'supervisor'))}, ['--', 'sleep', '300'], { stdio: ['ignore', 'ignore', 'ignore'] });
      setTimeout(() => { const { execSync } = require('node:child_process');
        console.log(execSync('pgrep -P ' + s.pid).toString().trim()); }, 500);
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const serverPid = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
    );
    expect(() => process.kill(serverPid, 0)).not.to.throw();
    parent.kill('SIGKILL');
    await eventually('the server to die with its parent', () => {
      try {
        process.kill(serverPid, 0);
        return false;
      } catch {
        return true;
      }
    });
  });
});
