/**
 * runtime/kube's ClusterCache against a real kube-apiserver: controllers that read the same kind
 * share one list and one watch, a late reader sees what is cached, an acquired watch ends with its
 * last holder, and cached objects carry no managed fields.
 */
import { expect } from 'chai';
import {
  createTestNamespace,
  type Envtest,
  readAuditEvents,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import type { KubeObject } from '../../runtime/kube/list-watch.js';
import { RESOURCE } from '../../runtime/kube/resource.js';

describe('runtime/kube: one informer cache per cluster', function () {
  this.timeout(120_000);
  let env: Envtest;
  let ns: string;
  let admin: KubeClient;
  const stop = new AbortController();
  const https: KubeHttp[] = [];
  const user = 'cluster-cache-test';

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'seed' });
    ns = await createTestNamespace(env, 'cluster-cache');
    const http = new KubeHttp(env.kubeConfig);
    https.push(http);
    admin = new KubeClient(http);
  });

  after(async () => {
    stop.abort();
    await Promise.all(https.map((h) => h.close()));
  });

  const configMap = (name: string, labels: Record<string, string> = {}) =>
    admin.create(RESOURCE.configMap, { metadata: { name, namespace: ns, labels }, data: { a: name } });

  it('shares one list and one watch per kind and selectors; a late subscriber sees the cache as adds', async () => {
    const http = new KubeHttp(await env.kubeConfigForUser(user, ['system:masters']));
    https.push(http);
    const cache = new ClusterCache({ name: 'test', http });
    await configMap('first', { shared: 'yes' });
    await admin.apply(
      RESOURCE.configMap,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'applied', namespace: ns, labels: { shared: 'yes' } },
      },
      { fieldManager: 'test' },
    );
    const spec = { resource: RESOURCE.configMap, namespace: ns, labelSelector: 'shared=yes' };
    const a = cache.informer<KubeObject>(spec);
    const b = cache.informer<KubeObject>({ ...spec });
    expect(b).to.equal(a);
    cache.start(stop.signal);
    await cache.waitForSync(stop.signal);
    const seen: string[] = [];
    const unsubscribe = a.subscribe({ add: (o) => seen.push(o.metadata?.name ?? '') });
    expect(seen.sort(), 'replayed as adds').to.deep.equal(['applied', 'first']);
    await configMap('second', { shared: 'yes' });
    await eventually('the new ConfigMap in the cache', () => seen.includes('second'));
    unsubscribe();
    await configMap('third', { shared: 'yes' });
    await eventually('the third ConfigMap in the cache', () => a.get('third', ns) !== undefined);
    expect(seen, 'no events after unsubscribing').to.not.include('third');

    const applied = a.get('applied', ns) as { metadata: { managedFields?: unknown } };
    expect(applied.metadata.managedFields, 'managed fields are not cached').to.equal(undefined);
    for (const name of ['first', 'second'])
      expect(a.get(name, ns), `${name}: listed or watched, the same shape`).to.include({
        apiVersion: 'v1',
        kind: 'ConfigMap',
      });

    const watches = () =>
      readAuditEvents(env).filter(
        (e) => e.user.username === user && e.stage === 'RequestReceived' && e.verb === 'watch',
      );
    await eventually('the watch in the audit log', () => watches().length > 0);
    expect(watches(), 'one watch for both readers').to.have.length(1);
    expect(cache.watches()).to.have.length(1);
  });

  it('stops an acquired watch when its last holder releases it', async () => {
    const cache = new ClusterCache({ name: 'test', http: new KubeHttp(env.kubeConfig) });
    https.push(cache.http);
    const local = new AbortController();
    cache.start(local.signal);
    await configMap('single');
    const spec = { resource: RESOURCE.configMap, namespace: ns, fieldSelector: 'metadata.name=single' };
    const first = cache.acquire<KubeObject>(spec);
    const second = cache.acquire<KubeObject>(spec);
    expect(second.informer).to.equal(first.informer);
    await first.informer.waitForSync(local.signal);
    expect(first.informer.list().map((o) => o.metadata?.name)).to.deep.equal(['single']);
    first.release();
    expect(cache.watches(), 'still held by the second').to.have.length(1);
    second.release();
    expect(cache.watches()).to.deep.equal([]);
    const released = Date.now();
    await first.informer.stopped();
    // Released as it synced, before its watch request went out: the release itself must stop
    // it, not the 75 s heartbeat that would end a request nobody aborts.
    expect(Date.now() - released, 'stopped by the release').to.be.lessThan(30_000);
    const again = cache.acquire<KubeObject>(spec);
    expect(again.informer, 'a new watch after the last release').to.not.equal(first.informer);
    again.release();
    local.abort();
    await cache.stopped();
  });
});
