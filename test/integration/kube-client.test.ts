/**
 * runtime/kube without client-node against a real kube-apiserver: kubeconfig files (token, client
 * certificates from relative files), token files read per request, the verbs of `KubeClient` with
 * the statuses the node agent relies on (404, 409), one kept-alive connection, and Event
 * aggregation by merge patch.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { stringifyYaml } from '../../api/index.js';
import {
  createTestNamespace,
  type Envtest,
  readAuditEvents,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { FakeClock } from '../../runtime/clock.js';
import { EventRecorder } from '../../runtime/events.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp, KubeStatusError } from '../../runtime/kube/kube-http.js';
import { loadKubeconfigFile } from '../../runtime/kube/kubeconfig-file.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { RestConfig } from '../../runtime/kube/rest-config.js';

describe('runtime/kube: KubeClient and RestConfig against a real kube-apiserver', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let ns: string;
  let dir: string;
  const closers: KubeHttp[] = [];
  const clientOf = (config: RestConfig) => {
    const http = new KubeHttp(config);
    closers.push(http);
    return new KubeClient(http);
  };

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'seed' });
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    ns = await createTestNamespace(env, 'kube-client');
    dir = mkdtempSync(join(tmpdir(), 'kube-client-test-'));
  });

  after(async () => {
    await Promise.all(closers.map((h) => h.close()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('create, get, update, merge patch, apply, list and delete; 404 and 409 as KubeStatusError', async () => {
    const client = clientOf(await loadKubeconfigFile(env.kubeconfigFile));
    const ref = { name: 'verbs', namespace: ns };
    const created = await client.create<V1ConfigMap>(RESOURCE.configMap, {
      metadata: { name: 'verbs', namespace: ns },
      data: { a: '1' },
    });
    const read = await client.get<V1ConfigMap>(RESOURCE.configMap, ref);
    expect(read.metadata?.uid).to.equal(created.metadata?.uid);
    const exists = await client.create(RESOURCE.configMap, { metadata: ref }).catch((e) => e);
    expect(exists).to.be.instanceOf(KubeStatusError).and.include({ status: 409, reason: 'AlreadyExists' });
    const replaced = await client.update<V1ConfigMap>(RESOURCE.configMap, { ...read, data: { a: '2' } });
    // the read's resourceVersion is stale now: optimistic concurrency says 409 Conflict
    const conflict = await client
      .update(RESOURCE.configMap, { ...read, data: { a: '3' } })
      .catch((e: unknown) => e);
    expect(conflict).to.be.instanceOf(KubeStatusError).and.include({ status: 409, reason: 'Conflict' });
    expect(isApiStatus(conflict, 409)).to.equal(true);
    const patched = await client.mergePatch<V1ConfigMap>(RESOURCE.configMap, ref, {
      data: { a: null, b: 'x' },
    });
    expect(patched.data).to.deep.equal({ b: 'x' });
    expect(Number(patched.metadata?.resourceVersion)).to.be.greaterThan(
      Number(replaced.metadata?.resourceVersion),
    );
    // server-side apply: the manager's intent; a field it applied before and leaves out goes
    const intent = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied', namespace: ns },
      data,
    });
    await client.apply(RESOURCE.configMap, intent({ c: '1', d: '2' }), { fieldManager: 'test' });
    const applied = await client.apply<V1ConfigMap>(RESOURCE.configMap, intent({ c: '1' }), {
      fieldManager: 'test',
    });
    expect(applied.data).to.deep.equal({ c: '1' });
    const listed = await client.list<V1ConfigMap>(RESOURCE.configMap, { namespace: ns });
    expect(listed.map((c) => c.metadata?.name).sort()).to.include.members(['applied', 'verbs']);
    expect(await client.delete(RESOURCE.configMap, ref)).to.equal(true);
    expect(await client.delete(RESOURCE.configMap, ref), 'already gone').to.equal(false);
    const gone = await client.get(RESOURCE.configMap, ref).catch((e: unknown) => e);
    expect(gone).to.be.instanceOf(KubeStatusError).and.include({ status: 404, reason: 'NotFound' });
    expect(isApiStatus(gone, 404)).to.equal(true);
    expect(isApiStatus(gone, 409)).to.equal(false);
    expect(await client.getIfExists(RESOURCE.configMap, ref)).to.equal(undefined);
  });

  it('client certificates from files named relative to the kubeconfig identify the user', async () => {
    const user = 'kube-client-cert-user';
    const issued = await env.kubeConfigForUser(user, ['system:masters']);
    const u = issued.getCurrentUser();
    const cluster = issued.getCurrentCluster();
    writeFileSync(join(dir, 'user.crt'), Buffer.from(u?.certData ?? '', 'base64'));
    writeFileSync(join(dir, 'user.key'), Buffer.from(u?.keyData ?? '', 'base64'));
    writeFileSync(join(dir, 'ca.crt'), Buffer.from(cluster?.caData ?? '', 'base64'));
    const file = join(dir, 'cert.kubeconfig');
    writeFileSync(
      file,
      stringifyYaml({
        clusters: [
          { name: 'envtest', cluster: { server: cluster?.server, 'certificate-authority': 'ca.crt' } },
        ],
        users: [{ name: user, user: { 'client-certificate': 'user.crt', 'client-key': 'user.key' } }],
        contexts: [{ name: 'envtest', context: { cluster: 'envtest', user } }],
        'current-context': 'envtest',
      }),
    );
    const client = clientOf(await loadKubeconfigFile(file));
    await client.get(RESOURCE.namespace, { name: ns });
    await eventually('the request in the audit log under the certificate user', () =>
      readAuditEvents(env).some(
        (e) => e.user.username === user && e.requestURI === `/api/v1/namespaces/${ns}`,
      ),
    );
  });

  it('a token file is read per request: a rotated token works without a new client, a wrong one is 401', async () => {
    const admin = env.kubeConfig.getCurrentUser()?.token ?? '';
    const cluster = env.kubeConfig.getCurrentCluster();
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'not-a-valid-token');
    const client = clientOf(
      new RestConfig({
        server: cluster?.server ?? '',
        ca: Buffer.from(cluster?.caData ?? '', 'base64'),
        tokenFile,
      }),
    );
    const denied = await client.get(RESOURCE.namespace, { name: 'default' }).catch((e: unknown) => e);
    expect(denied).to.be.instanceOf(KubeStatusError).and.include({ status: 401 });
    writeFileSync(tokenFile, admin);
    expect(
      (await client.get<{ metadata: { name: string } }>(RESOURCE.namespace, { name: 'default' })).metadata
        .name,
    ).to.equal('default');
  });

  it('tunnels through an HTTP proxy (CONNECT) when the cluster names a proxy-url', async () => {
    const tunnels: string[] = [];
    const sockets: Socket[] = [];
    const proxy = createServer();
    proxy.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      sockets.push(socket);
      const [host, port] = (req.url ?? '').split(':');
      const upstream = connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket).pipe(upstream);
      });
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const cluster = env.kubeConfig.getCurrentCluster();
      const client = clientOf(
        new RestConfig({
          server: cluster?.server ?? '',
          ca: Buffer.from(cluster?.caData ?? '', 'base64'),
          token: env.kubeConfig.getCurrentUser()?.token,
          proxyUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        }),
      );
      const read = await client.get<{ metadata: { name: string } }>(RESOURCE.namespace, { name: ns });
      expect(read.metadata.name).to.equal(ns);
      expect(tunnels).to.deep.equal([new URL(cluster?.server ?? '').host]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => proxy.close(r));
    }
  });

  it('sends basic auth when the credentials give a user and password (client-node sets `auth`)', async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.setHeader('content-type', 'application/json');
      res.end('{"metadata":{"name":"x"}}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const http = new KubeHttp({
        getCurrentCluster: () => ({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
        applyToHTTPSOptions: async (o) => {
          o.auth = 'admin:secret';
        },
      });
      closers.push(http);
      await new KubeClient(http).get(RESOURCE.namespace, { name: 'x' });
      expect(seen).to.deep.equal([`Basic ${Buffer.from('admin:secret').toString('base64')}`]);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('reuses kept-alive connections: ten sequential requests, at most two TLS handshakes', async () => {
    const client = clientOf(await loadKubeconfigFile(env.kubeconfigFile));
    const server = new URL(env.kubeConfig.getCurrentCluster()?.server ?? '');
    let connections = 0;
    // every TLS connection Node's https agent opens goes through tls.connect
    const connect = tls.connect;
    tls.connect = ((...args: Parameters<typeof tls.connect>) => {
      const options = args[0] as { port?: number | string };
      if (Number(options?.port) === Number(server.port)) connections++;
      return connect(...args);
    }) as typeof tls.connect;
    try {
      for (let i = 0; i < 10; i++) await client.get(RESOURCE.namespace, { name: ns });
    } finally {
      tls.connect = connect;
    }
    // a client without keep-alive (client-node) opens one per request
    expect(connections, 'TLS connections for ten sequential GETs').to.be.within(1, 2);
  });

  it('aggregates a repeated Event with one merge patch and no read; an aggregated Event that is gone is created again', async () => {
    const user = 'kube-client-events';
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    const http = new KubeHttp(await env.kubeConfigForUser(user, ['system:masters']));
    closers.push(http);
    const recorder = new EventRecorder({ http, component: 'test', clock });
    const object = { apiVersion: 'v1', kind: 'ConfigMap', name: 'evented', namespace: ns };
    const events = async () =>
      (await core.listNamespacedEvent({ namespace: ns })).items.filter(
        (e) => e.involvedObject.name === 'evented',
      );
    await recorder.event(object, 'Normal', 'Tested', 'same');
    await clock.advance(5_000);
    await recorder.event(object, 'Normal', 'Tested', 'same');
    const [one, ...more] = await events();
    expect(more).to.deep.equal([]);
    expect(one?.count).to.equal(2);
    expect(one?.firstTimestamp?.toISOString()).to.equal('2026-01-01T00:00:00.000Z');
    expect(one?.lastTimestamp?.toISOString()).to.equal('2026-01-01T00:00:05.000Z');
    const verbs = () =>
      readAuditEvents(env)
        .filter((e) => e.user.username === user && e.stage === 'ResponseComplete')
        .map((e) => e.verb);
    await eventually('both requests in the audit log', () => verbs().length >= 2);
    expect(verbs()).to.deep.equal(['create', 'patch']);

    await core.deleteNamespacedEvent({ namespace: ns, name: one?.metadata?.name ?? '' });
    await recorder.event(object, 'Normal', 'Tested', 'same');
    const [again, ...others] = await events();
    expect(others).to.deep.equal([]);
    expect(again?.count).to.equal(1);
    expect(again?.metadata?.name).to.not.equal(one?.metadata?.name);

    // what can no longer be aggregated is forgotten: a long-running process keeps no event forever
    expect(recorder.aggregating).to.equal(1);
    await clock.advance(11 * 60_000);
    await recorder.event(object, 'Normal', 'Tested', 'another');
    expect(recorder.aggregating).to.equal(1);
  });
});
