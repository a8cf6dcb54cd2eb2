/**
 * The contract between the renderer and the node agent: an agent running with the
 * ServiceAccount `kube-system/gardener-node-agent`, bound only by the RBAC that
 * `gardener-osc render --target shoot --node-agent-identity serviceAccount` produces (the v1.91
 * mode), has every permission it needs (its OSC secret, its access token, its Node, events, its
 * Lease) and cannot read another secret. Per-node identities: node-agent-identity.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiException, CoordinationV1Api, CoreV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import { expect } from 'chai';
import { PATH, parseGoDuration, parseSemVer, sha256Hex } from '../../api/index.js';
import { DEFAULT_NOW, render } from '../../cli/render-command.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { oscV1, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../hack/node-agent-doubles/memory-systemd.js';
import { type RunningAgent, runAgent } from '../../node-agent/agent/run-agent.js';
import { DirectoryImageExtractor } from '../../node-agent/registry/directory-extractor.js';
import { silentLogger } from '../../runtime/logging.js';

describe('node agent with the RBAC the renderer ships', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let dir: string;
  let agent: RunningAgent | undefined;
  const rbacObjects: Record<string, unknown>[] = [];
  const nodeName = `rbac-node-${Date.now().toString(36)}`;
  // the name the renderer's Role grants (the example's first pool)
  const secretName = 'gardener-node-agent-cpu-worker-46fed';

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    dir = mkdtempSync(join(tmpdir(), 'gna-rbac-'));
  });

  after(async () => {
    agent?.stop();
    await agent?.stopped;
    rmSync(dir, { recursive: true, force: true });
    await core?.deleteNode({ name: nodeName }).catch(() => undefined);
    for (const name of [secretName, 'unrelated-secret', 'gardener-node-agent']) {
      await core?.deleteNamespacedSecret({ name, namespace: 'kube-system' }).catch(() => undefined);
    }
    const api = env && KubernetesObjectApi.makeApiClient(env.kubeConfig);
    for (const o of rbacObjects) await api?.delete(o as never).catch(() => undefined);
  });

  it('applies, stamps its Node, renews its Lease, and gets 403 for another secret', async () => {
    // the RBAC objects of the rendered ManagedResource, applied as gardener-resource-manager would
    const objects = render({
      target: 'shoot',
      now: DEFAULT_NOW,
      nodeAgentIdentity: 'serviceAccount',
    }).objects.filter((o) => String(o.apiVersion).startsWith('rbac.'));
    rbacObjects.push(...objects);
    expect(objects.map((o) => o.kind).sort()).to.deep.equal([
      'ClusterRole',
      'ClusterRoleBinding',
      'ClusterRoleBinding',
      'ClusterRoleBinding',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
    ]);
    const api = KubernetesObjectApi.makeApiClient(env.kubeConfig);
    for (const o of objects)
      await api.patch(
        o as never,
        undefined,
        undefined,
        'test',
        true,
        'application/apply-patch+yaml' as never,
      );

    const yaml = yamlOf(oscV1());
    for (const [name, data] of [
      [secretName, { 'osc.yaml': yaml }],
      ['unrelated-secret', { password: 'hunter2' }],
    ] as const) {
      await core
        .createNamespacedSecret({
          namespace: 'kube-system',
          body: {
            metadata: { name, annotations: { 'checksum/data-script': sha256Hex(yaml) } },
            data: Object.fromEntries(
              Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
            ),
          },
        })
        .catch((e) => {
          if (!(e instanceof ApiException && e.code === 409)) throw e;
        });
    }
    await core.createNode({
      body: { metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName } } },
    });

    // the access token the agent starts with (gardener-resource-manager would keep it rotated)
    const sa = await env.kubeConfigForServiceAccount('kube-system', 'gardener-node-agent');
    const token = sa.getCurrentUser()?.token ?? '';
    await core
      .createNamespacedSecret({
        namespace: 'kube-system',
        body: {
          metadata: { name: 'gardener-node-agent' },
          data: { token: Buffer.from(token).toString('base64') },
        },
      })
      .catch((e) => {
        if (!(e instanceof ApiException && e.code === 409)) throw e;
      });
    const root = join(dir, 'root');
    mkdirSync(join(root, 'var/lib/gardener-node-agent/credentials'), { recursive: true });
    writeFileSync(join(root, PATH.nodeAgentToken), token, { mode: 0o600 });
    const images = join(dir, 'images');
    mkdirSync(join(images, 'foo-image'), { recursive: true });
    writeFileSync(join(images, 'foo-image', 'foo-file'), 'file3');

    const cluster = env.kubeConfig.getCurrentCluster()!;
    agent = await runAgent({
      config: {
        clientConnection: {},
        server: {},
        apiServer: { server: cluster.server, caBundle: cluster.caData },
        controllers: {
          operatingSystemConfig: {
            secretName,
            kubernetesVersion: parseSemVer('1.30.2'),
            syncPeriod: parseGoDuration('10m'),
          },
          token: {
            syncConfigs: [{ secretName: 'gardener-node-agent', path: PATH.nodeAgentToken }],
            syncPeriod: parseGoDuration('1h'),
          },
        },
      },
      root,
      systemd: new MemorySystemd(),
      images: new DirectoryImageExtractor(images),
      log: silentLogger,
      env: {},
      nodeName,
      healthPort: 0,
      metricsPort: 0,
    });

    await eventually('the node checksum written with the agent identity', async () => {
      const node = await core.readNode({ name: nodeName });
      return node.metadata?.annotations?.['checksum/cloud-config-data'] === sha256Hex(yaml);
    });
    expect(readFileSync(join(root, 'example/file'), 'utf8')).to.equal('file1');
    const coordination = env.kubeConfig.makeApiClient(CoordinationV1Api);
    await eventually('the lease', () =>
      coordination.readNamespacedLease({ name: `gardener-node-agent-${nodeName}`, namespace: 'kube-system' }),
    );

    const asAgent = sa.makeApiClient(CoreV1Api);
    try {
      await asAgent.readNamespacedSecret({ name: 'unrelated-secret', namespace: 'kube-system' });
      expect.fail('the agent read a secret it must not see');
    } catch (e) {
      expect((e as ApiException<unknown>).code).to.equal(403);
    }
  });
});
