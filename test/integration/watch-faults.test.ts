/**
 * Watches against a real kube-apiserver under the faults that broke them: large non-ASCII objects
 * (a character cut at a chunk boundary must not become U+FFFD) and a connection that dies without a
 * reset behind a freezing proxy, for an informer, the node agent and the controller-manager.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { sha256Hex, stringifyYaml } from '../../api/index.js';
import { runControllerManager } from '../../controllers/index.js';
import {
  createTestNamespace,
  type Envtest,
  requireClusterScopedWrites,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { FreezingProxy } from '../../hack/landscape/freezing-proxy.js';
import { writeImages } from '../../hack/landscape/image-files.js';
import { IMAGE_FILES, oscV1, oscV2, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { viaProxy } from '../../hack/landscape/via-proxy.js';
import { Informer } from '../../runtime/kube/informer.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { WATCH_HEARTBEAT_TIMEOUT_ENV } from '../../runtime/kube/list-watch.js';
import { silentLogger } from '../../runtime/logging.js';
import { decodeControllerManagerConfiguration } from '../../seed/manager/config.js';
import { createOscSecretAndNode } from './node-agent-objects.js';

async function readyz(url: string): Promise<{ status: number; body: string }> {
  const r = await fetch(`${url}/readyz`);
  return { status: r.status, body: await r.text() };
}

describe('watches under faults against a real kube-apiserver', function () {
  this.timeout(180_000);
  let env: Envtest;
  let core: CoreV1Api;
  let ns: string;
  let proxy: FreezingProxy;
  const cleanup: (() => Promise<unknown> | unknown)[] = [];

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    ns = await createTestNamespace(env, 'watch-faults');
  });

  beforeEach(async () => {
    const { hostname, port } = new URL(env.server);
    proxy = await FreezingProxy.start({ host: hostname, port: Number(port) });
    cleanup.push(() => proxy.close());
  });

  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('delivers large non-ASCII objects exactly, by list and by watch', async () => {
    const umlauts = 'ü'.repeat(50_000); // 100 KB
    const mixed = 'grüße € 価格 𝄞 '.repeat(2_000);
    const body = (name: string): V1ConfigMap => ({
      metadata: { name, namespace: ns, annotations: { big: umlauts } },
      data: { mixed },
    });
    await core.createNamespacedConfigMap({ namespace: ns, body: body('listed') });
    const informer = new Informer<V1ConfigMap>({
      http: new KubeHttp(env.kubeConfig),
      path: `/api/v1/namespaces/${ns}/configmaps`,
    });
    const stop = new AbortController();
    informer.start(stop.signal);
    cleanup.push(() => informer.stopped());
    cleanup.push(() => stop.abort());
    await informer.waitForSync();
    const watched: V1ConfigMap[] = [];
    informer.on({ add: (o) => watched.push(o), update: (_, o) => watched.push(o) });
    for (let i = 0; i < 5; i++) await core.createNamespacedConfigMap({ namespace: ns, body: body(`w${i}`) });
    await eventually('five watch events', () => watched.length === 5);
    for (const o of [informer.get('listed', ns)!, ...watched]) {
      expect(o.metadata?.annotations?.big?.length, o.metadata?.name).to.equal(50_000);
      expect(o.metadata?.annotations?.big === umlauts, o.metadata?.name).to.equal(true);
      expect(o.data?.mixed === mixed, o.metadata?.name).to.equal(true);
    }
  });

  it('an informer re-opens a frozen watch after its heartbeat and sees the change made meanwhile', async () => {
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'frozen' } } });
    const informer = new Informer<V1ConfigMap>({
      http: new KubeHttp(viaProxy(env.kubeConfig, proxy)),
      path: `/api/v1/namespaces/${ns}/configmaps`,
      fieldSelector: 'metadata.name=frozen',
      heartbeatTimeoutMs: 2_000,
    });
    const stop = new AbortController();
    informer.start(stop.signal);
    cleanup.push(() => informer.stopped());
    cleanup.push(() => stop.abort());
    await informer.waitForSync();
    await sleep(500);
    proxy.freeze();
    const frozenAt = Date.now();
    await core.replaceNamespacedConfigMap({
      name: 'frozen',
      namespace: ns,
      body: { metadata: { name: 'frozen' }, data: { changed: 'while frozen' } },
    });
    await eventually('the change made while the connection was frozen', () =>
      Boolean(informer.get('frozen', ns)?.data?.changed),
    );
    // 2 s heartbeat; without it the dead stream would hang until the body timeout (6-11 min)
    expect(Date.now() - frozenAt).to.be.below(10_000);
    expect(informer.stats.watchesOpened).to.be.at.least(2);
  });

  it('the node agent is unready while its watch is stale, warns once and applies the change after', async () => {
    requireClusterScopedWrites(env);
    const dir = mkdtempSync(join(tmpdir(), 'gna-frozen-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const suffix = Date.now().toString(36);
    const nodeName = `frozen-node-${suffix}`;
    const secretName = `gardener-node-agent-frozen-${suffix}`;
    cleanup.push(() => core.deleteNode({ name: nodeName }).catch(() => undefined));
    cleanup.push(() =>
      core.deleteNamespacedSecret({ name: secretName, namespace: 'kube-system' }).catch(() => undefined),
    );
    const root = join(dir, 'root');
    mkdirSync(root);
    const images = writeImages(join(dir, 'images'), IMAGE_FILES);
    const v1 = yamlOf(oscV1());
    await createOscSecretAndNode(core, { secretName, nodeName, oscYaml: v1 });
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, viaProxy(env.kubeConfig, proxy).exportConfig());
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      stringifyYaml({
        apiVersion: 'nodeagent.config.gardener.cloud/v1alpha1',
        kind: 'NodeAgentConfiguration',
        clientConnection: { kubeconfig },
        apiServer: { server: env.server },
        controllers: {
          operatingSystemConfig: { secretName, kubernetesVersion: '1.30.2', syncJitterPeriod: '0s' },
          token: {
            syncConfigs: [
              { secretName: 'gardener-node-agent', path: '/var/lib/gardener-node-agent/credentials/token' },
            ],
          },
        },
      }),
    );
    const cli = join(import.meta.dirname, '../../hack/node-agent-doubles/main.ts');
    const args = ['--import', 'tsx', cli, 'run', '--config', config, '--root', root, '--images', images];
    args.push(`--systemd=record:${join(dir, 'systemd.jsonl')}`, '--node-name', nodeName);
    args.push('--health-port', '0', '--metrics-port', '0');
    const agent: ChildProcess = spawn(process.execPath, args, {
      env: { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1', [WATCH_HEARTBEAT_TIMEOUT_ENV]: '2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    agent.stdout?.on('data', (d) => (logs += d));
    agent.stderr?.on('data', (d) => (logs += d));
    cleanup.push(() => agent.kill('SIGKILL'));
    const checksum = async () =>
      (await core.readNode({ name: nodeName })).metadata?.annotations?.['checksum/cloud-config-data'];
    await eventually('the first apply', async () => (await checksum()) === sha256Hex(v1), 60_000).catch(
      (e: Error) => {
        throw new Error(`${e.message}\n${logs}`);
      },
    );
    const health = /"health":"(http:[^"]+)"/.exec(logs)?.[1] ?? '';
    await eventually('ready', async () => (await readyz(health)).status === 200);

    proxy.freeze();
    proxy.blackhole(true);
    const v2 = yamlOf(oscV2());
    await core.replaceNamespacedSecret({
      name: secretName,
      namespace: 'kube-system',
      body: {
        metadata: { name: secretName, annotations: { 'checksum/data-script': sha256Hex(v2) } },
        data: { 'osc.yaml': Buffer.from(v2).toString('base64') },
      },
    });
    const unready = await eventually('unready', async () => {
      const r = await readyz(health);
      return r.status === 500 ? r.body : undefined;
    });
    expect(unready).to.match(/\[-\]watches failed: stale: .*\/api\/v1\/namespaces\/kube-system\/secrets/);
    await sleep(6_000); // failed re-opens through the black hole
    proxy.blackhole(false);
    await eventually(
      'the change applied after the outage',
      async () => (await checksum()) === sha256Hex(v2),
      60_000,
    );
    await eventually('ready again', async () => (await readyz(health)).status === 200);
    const warnings = logs
      .split('\n')
      .filter((l) => l.includes('"level":"warn"') && l.includes('Watch is stale'))
      .map((l) => (JSON.parse(l) as { watch: string }).watch);
    // one per watch that went stale (the OSC secret, the Node), however many retries failed
    expect(new Set(warnings).size, logs).to.equal(warnings.length);
    expect(warnings.some((w) => w.startsWith('/api/v1/namespaces/kube-system/secrets'))).to.equal(true);
    expect(readFileSync(join(root, 'example/file'), 'utf8')).to.not.equal('');
  });

  it('the controller-manager is unready while a seed watch is stale, and ready once it is re-opened', async () => {
    process.env[WATCH_HEARTBEAT_TIMEOUT_ENV] = '2';
    cleanup.push(() => delete process.env[WATCH_HEARTBEAT_TIMEOUT_ENV]);
    const decoded = decodeControllerManagerConfiguration({
      apiVersion: 'node-configuration.gardener.cloud/v1alpha1',
      kind: 'ControllerManagerConfiguration',
      clusterSelector: { matchLabels: { 'watch-faults': 'none' } },
      leaderElection: { enabled: false },
      server: { healthProbes: { port: 0 }, metrics: { port: 0 } },
    });
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
    const manager = await runControllerManager({
      config: decoded.value,
      seed: viaProxy(env.kubeConfig, proxy),
      log: silentLogger,
    });
    cleanup.push(() => manager.stopped);
    cleanup.push(() => manager.stop());
    await eventually('ready', async () => (await readyz(manager.health.url)).status === 200);
    proxy.freeze();
    proxy.blackhole(true);
    // every seed watch goes stale on its own heartbeat: wait for the Clusters' one
    const body = await eventually('unready', async () => {
      const r = await readyz(manager.health.url);
      return r.status === 500 && r.body.includes('/clusters') ? r.body : undefined;
    });
    expect(body).to.match(
      /\[-\]watches failed: stale: .*\/apis\/extensions.gardener.cloud\/v1alpha1\/clusters/,
    );
    proxy.blackhole(false);
    await eventually('ready again', async () => (await readyz(manager.health.url)).status === 200);
  });
});
