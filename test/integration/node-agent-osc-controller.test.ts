/**
 * The node agent's OSC controller against a real API server: it applies its own OSC secret,
 * stamps the Node, records an event, honours the Node's reconciliation delay for changes and
 * ignores annotation-only updates.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { type OperatingSystemConfig, sha256Hex } from '../../api/index.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { IMAGE_FILES, oscV1, oscV2, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../hack/node-agent-doubles/memory-systemd.js';
import { addOscController } from '../../node-agent/controllers/operatingsystemconfig/add.js';
import { DirectoryImageExtractor } from '../../node-agent/registry/directory-extractor.js';
import { EventRecorder } from '../../runtime/events.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { runtimeMetrics } from '../../runtime/metrics.js';

function secretBody(name: string, osc: OperatingSystemConfig, extraAnnotations: Record<string, string> = {}) {
  const yaml = yamlOf(osc);
  return {
    yaml,
    body: {
      metadata: {
        name,
        namespace: 'kube-system',
        annotations: { 'checksum/data-script': sha256Hex(yaml), ...extraAnnotations },
      },
      data: { 'osc.yaml': Buffer.from(yaml).toString('base64') },
    },
  };
}

describe('node agent OSC controller against a real API server', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let root: string;
  let images: string;
  const stop = new AbortController();
  const secretName = `gardener-node-agent-pool-${Date.now().toString(36)}`;
  const nodeName = `node-${Date.now().toString(36)}`;

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    root = mkdtempSync(join(tmpdir(), 'gna-root-'));
    images = mkdtempSync(join(tmpdir(), 'gna-images-'));
    for (const [image, files] of Object.entries(IMAGE_FILES)) {
      for (const [path, content] of Object.entries(files)) {
        const target = join(images, encodeURIComponent(image), path);
        mkdirSync(join(target, '..'), { recursive: true });
        writeFileSync(target, content);
      }
    }
    await core.createNode({
      body: {
        metadata: {
          name: nodeName,
          labels: { 'kubernetes.io/hostname': nodeName },
          annotations: { 'node-agent.gardener.cloud/reconciliation-delay': '3s' },
        },
      },
    });
  });

  after(async () => {
    stop.abort();
    rmSync(root, { recursive: true, force: true });
    rmSync(images, { recursive: true, force: true });
    await core?.deleteNode({ name: nodeName }).catch(() => undefined);
    for (const name of [secretName, `${secretName}-other`]) {
      await core?.deleteNamespacedSecret({ name, namespace: 'kube-system' }).catch(() => undefined);
    }
  });

  it('applies its secret, stamps the Node, records an event, delays changes, ignores annotation-only updates', async () => {
    const systemd = new MemorySystemd();
    const v1 = secretBody(secretName, oscV1());
    await core.createNamespacedSecret({ namespace: 'kube-system', body: v1.body });
    const other = secretBody(`${secretName}-other`, oscV2());
    await core.createNamespacedSecret({ namespace: 'kube-system', body: other.body });
    let restarts = 0;
    const metrics = runtimeMetrics(new Registry());
    /** Reconciles of the secret so far (any result). */
    const reconciles = async () =>
      (await metrics.reconcileTotal.get()).values
        .filter((v) => v.labels.controller === 'operatingsystemconfig')
        .reduce((sum, v) => sum + v.value, 0);
    const agent = addOscController(
      {
        http: new KubeHttp(env.kubeConfig),
        client: new KubeClient(new KubeHttp(env.kubeConfig)),
        secretName,
        nodeName,
        hostName: nodeName,
        kubernetesVersion: '1.2.3',
        syncPeriodMs: 600_000,
        root,
        systemd,
        images: new DirectoryImageExtractor(images),
        recorder: new EventRecorder({ http: new KubeHttp(env.kubeConfig), component: 'gardener-node-agent' }),
        restartSelf: () => restarts++,
        metrics,
      },
      stop.signal,
    );
    await agent.synced();
    expect(
      agent.secrets.list().map((s) => s.metadata?.name),
      'only its own secret is cached',
    ).to.deep.equal([secretName]);

    const stamped = await eventually('the node checksum', async () => {
      const node = await core.readNode({ name: nodeName });
      return node.metadata?.annotations?.['checksum/cloud-config-data'] === sha256Hex(v1.yaml)
        ? node
        : undefined;
    });
    expect(stamped.metadata?.labels?.['worker.gardener.cloud/kubernetes-version']).to.equal('1.2.3');
    expect(readFileSync(join(root, 'example/file'), 'utf8')).to.equal('file1');
    expect(readFileSync(join(root, 'third/file'), 'utf8')).to.equal('file3');
    expect(systemd.ops).to.deep.include({ op: 'restart', unit: 'unit1' });
    const events = await eventually('the OSCApplied event', async () => {
      const list = await core.listNamespacedEvent({ namespace: 'default' });
      const e = list.items.filter((i) => i.reason === 'OSCApplied' && i.involvedObject.name === nodeName);
      return e.length > 0 ? e : undefined;
    });
    expect(events[0]!.message).to.equal('Operating system config has been applied successfully');

    // an annotation-only change is not an OSC change: nothing is even queued (a reconcile of an
    // unchanged OSC would do nothing either, so the systemd calls alone cannot tell)
    const opsBefore = systemd.ops.length;
    const reconcilesBefore = await reconciles();
    const key = `kube-system/${secretName}`;
    const dueBefore = agent.controller.queue.dueAt(key); // the periodic resync
    await core.patchNamespacedSecret(
      { name: secretName, namespace: 'kube-system', body: { metadata: { annotations: { unrelated: 'x' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually("the annotation in the agent's cache", () =>
      agent.secrets.get(secretName, 'kube-system')?.metadata?.annotations?.unrelated === 'x'
        ? true
        : undefined,
    );
    expect(agent.controller.queue.dueAt(key), 'not queued after its delay').to.equal(dueBefore);
    await sleep(3500); // past the node's 3 s delay
    expect(await reconciles(), 'no reconcile').to.equal(reconcilesBefore);
    expect(systemd.ops.length).to.equal(opsBefore);

    // a change of osc.yaml waits for the node's reconciliation delay (3 s)
    const v2 = secretBody(secretName, oscV2());
    const changedAt = Date.now();
    await core.replaceNamespacedSecret({ name: secretName, namespace: 'kube-system', body: v2.body });
    await eventually('the new checksum on the node', async () => {
      const node = await core.readNode({ name: nodeName });
      return node.metadata?.annotations?.['checksum/cloud-config-data'] === sha256Hex(v2.yaml)
        ? node
        : undefined;
    });
    expect(Date.now() - changedAt, 'applied only after the delay').to.be.greaterThanOrEqual(3000);
    expect(readFileSync(join(root, 'changed/file'), 'utf8')).to.equal('changeme');
    expect(restarts).to.equal(0);
  });
});
