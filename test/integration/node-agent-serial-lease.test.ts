/**
 * Serial reconciliation against a real API server (gardener v1.150.0
 * pkg/nodeagent/controller/operatingsystemconfig/serial.go): with the secret's
 * `reconciliation.osc.node-agent.gardener.cloud/serial` annotation the agent applies only while it
 * holds the Lease named like the secret. Another agent's Lease renewed in time holds it back until
 * it expires; then it takes the Lease over (its hostname, 600 s, owned by the secret), applies,
 * and releases it. The agent of a v1.150.0 configuration also labels its Node with its role and
 * zone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, V1MicroTime } from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { sha256Hex } from '../../api/index.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { IMAGE_FILES, oscV1, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../hack/node-agent-doubles/memory-systemd.js';
import { addOscController } from '../../node-agent/controllers/operatingsystemconfig/add.js';
import { DirectoryImageExtractor } from '../../node-agent/registry/directory-extractor.js';
import { EventRecorder } from '../../runtime/events.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { runtimeMetrics } from '../../runtime/metrics.js';

describe('node agent serial reconciliation Lease against a real API server', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let coordination: CoordinationV1Api;
  let root: string;
  let images: string;
  const stop = new AbortController();
  const secretName = `gardener-node-agent-serial-${Date.now().toString(36)}`;
  const nodeName = `node-${Date.now().toString(36)}`;

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    coordination = env.kubeConfig.makeApiClient(CoordinationV1Api);
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
      body: { metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName } } },
    });
  });

  after(async () => {
    stop.abort();
    rmSync(root, { recursive: true, force: true });
    rmSync(images, { recursive: true, force: true });
    await core?.deleteNode({ name: nodeName }).catch(() => undefined);
    await core?.deleteNamespacedSecret({ name: secretName, namespace: 'kube-system' }).catch(() => undefined);
    await coordination
      ?.deleteNamespacedLease({ name: secretName, namespace: 'kube-system' })
      .catch(() => undefined);
  });

  it("waits while another agent's Lease is renewed in time, then takes it over, applies and releases it", async () => {
    const yaml = yamlOf(oscV1());
    const secret = await core.createNamespacedSecret({
      namespace: 'kube-system',
      body: {
        metadata: {
          name: secretName,
          namespace: 'kube-system',
          annotations: {
            'checksum/data-script': sha256Hex(yaml),
            'reconciliation.osc.node-agent.gardener.cloud/serial': 'true',
          },
        },
        data: { 'osc.yaml': Buffer.from(yaml).toString('base64') },
      },
    });
    const heldFor = 4;
    const heldUntil = Date.now() + heldFor * 1000;
    await coordination.createNamespacedLease({
      namespace: 'kube-system',
      body: {
        metadata: { name: secretName, namespace: 'kube-system' },
        spec: {
          holderIdentity: 'other-node',
          leaseDurationSeconds: heldFor,
          acquireTime: new V1MicroTime(),
          renewTime: new V1MicroTime(),
        },
      },
    });

    mkdirSync(join(root, 'var/lib/gardener-node-agent'), { recursive: true });
    writeFileSync(join(root, 'var/lib/gardener-node-agent/zone'), 'europe-a\n');
    const systemd = new MemorySystemd();
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
        restartSelf: () => undefined,
        metrics: runtimeMetrics(new Registry()),
        nodeRoleAndZoneLabels: true,
      },
      stop.signal,
    );
    await agent.synced();

    let firstCallAt: number | undefined;
    const calls = () => {
      if (systemd.ops.length > 0) firstCallAt ??= Date.now();
      return systemd.ops.length;
    };
    const stamped = await eventually('the node checksum', async () => {
      calls();
      const node = await core.readNode({ name: nodeName });
      return node.metadata?.annotations?.['checksum/cloud-config-data'] === sha256Hex(yaml)
        ? node
        : undefined;
    });
    expect(stamped.metadata?.labels).to.include({
      'node-role.kubernetes.io/worker': '',
      'topology.kubernetes.io/zone': 'europe-a',
    });
    expect(firstCallAt, 'the first systemd call').to.not.equal(undefined);
    expect(firstCallAt!, 'nothing applied while the other Lease was renewed in time').to.be.at.least(
      heldUntil,
    );

    const lease = await eventually('the Lease released', async () => {
      const l = await coordination.readNamespacedLease({ name: secretName, namespace: 'kube-system' });
      return l.spec?.holderIdentity === undefined ? l : undefined;
    });
    expect(lease.spec).to.deep.equal({});
    expect(lease.metadata?.ownerReferences).to.deep.equal([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        name: secretName,
        uid: secret.metadata?.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
  });
});
