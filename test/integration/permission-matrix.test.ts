/**
 * The permission matrix on envtest, printed as tables: what the agent of node A in pool P (and a
 * bootstrap token) can do with per-node identities (the node agent authorizer and admission
 * policy), and what the shared ServiceAccount (and a bootstrap token) can still do in the v1.91
 * mode with the RBAC `render --node-agent-identity serviceAccount` ships. Node B shares pool P,
 * node C is in pool Q. Every cell is a real request; the expected tables are below, row by row.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import { expect } from 'chai';
import { LABEL, PATH, parseGoDuration } from '../../api/index.js';
import { DEFAULT_NOW, render } from '../../cli/render-command.js';
import { createBootstrapToken } from '../../hack/landscape/csr-signer.js';
import {
  createTestNamespace,
  type Envtest,
  requireClusterScopedWrites,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import {
  formatMatrix,
  MATRIX_ROWS,
  type MatrixResult,
  type MatrixTarget,
  type Outcome,
  runMatrix,
} from '../../hack/landscape/permission-matrix.js';
import { obtainNodeIdentity } from '../../node-agent/identity/obtain-identity.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { KubeconfigFileAccess } from '../../runtime/kube/kubeconfig-file.js';
import { RestConfig } from '../../runtime/kube/rest-config.js';
import { silentLogger } from '../../runtime/logging.js';
import { nodeIdentityLandscape } from './node-identity-landscape.js';

const A = 'allowed';
const Z = 'denied (authorization)';
const M = 'denied (admission)';

/** Expected outcomes per row, in MATRIX_ROWS order: [agent A, bootstrap token]. */
const PER_NODE: Readonly<Record<string, readonly [Outcome, Outcome]>> = {
  'get OSC secret of its pool P': [A, Z],
  'list+watch OSC secret of pool P by name': [A, Z],
  'get OSC secret of pool Q': [Z, Z],
  'get token secret gardener-valitail': [A, Z],
  'get shared token secret gardener-node-agent': [Z, Z],
  'list all secrets in kube-system': [Z, Z],
  'get a secret in another namespace': [Z, Z],
  'create a secret in kube-system': [Z, Z],
  'get+watch its Node A': [A, Z],
  'annotate Node A checksum/cloud-config-data (owned)': [A, Z],
  'report an apply on Node A (owned)': [A, Z],
  "set Node A's rollout permission permitted-checksum (the seed's)": [M, Z],
  'label Node A worker.gardener.cloud/pool (not owned)': [M, Z],
  'cordon Node A': [A, Z],
  'set Ready=False on Node A': [M, Z],
  'write Node A status images (not addresses)': [M, Z],
  'label Node A worker.gardener.cloud/pool through its status': [M, Z],
  'write Node A status addresses': [A, Z],
  'delete Node A': [Z, Z],
  'get Node B (same pool)': [Z, Z],
  'annotate Node B (same pool)': [Z, Z],
  'report an apply on Node B (same pool)': [Z, Z],
  'taint Node B NoExecute': [Z, Z],
  'set Ready=False on Node C (pool Q)': [Z, Z],
  'list all Nodes': [Z, Z],
  'create+update its Lease gardener-node-agent-A': [A, Z],
  'update Lease of Node B': [Z, Z],
  'create Lease kube-system/kube-controller-manager-x': [M, Z],
  'create a Lease in another namespace': [Z, Z],
  'create an Event about Node A': [A, Z],
  'create an Event about Node B': [M, Z],
  'rewrite an Event about Node B into one about Node A': [M, Z],
  'create an Event in another namespace': [Z, Z],
  'list Events in all namespaces': [Z, Z],
  'create a CertificateSigningRequest': [A, A],
  'list all CertificateSigningRequests': [Z, A],
  'list the pods of Node A': [A, Z],
  'list all pods': [Z, Z],
  "read Node A's kubelet /configz through the node proxy": [A, Z],
  "read Node B's kubelet /configz through the node proxy": [Z, Z],
  'evict a pod of Node A': [A, Z],
  'evict a pod of Node B': [Z, Z],
  'list namespaces': [Z, Z],
  'get a ConfigMap in kube-system': [Z, Z],
  'create a ClusterRoleBinding': [Z, Z],
};

/** What the v1.91 mode still allows: [the shared ServiceAccount, a bootstrap token]. */
const SHARED: Readonly<Record<string, readonly [Outcome, Outcome]>> = {
  'get OSC secret of its pool P': [A, A],
  'list+watch OSC secret of pool P by name': [A, A],
  'get OSC secret of pool Q': [A, A],
  'get token secret gardener-valitail': [A, A],
  'get shared token secret gardener-node-agent': [A, A],
  'list all secrets in kube-system': [Z, Z],
  'get a secret in another namespace': [Z, Z],
  'create a secret in kube-system': [Z, Z],
  'get+watch its Node A': [A, Z],
  'annotate Node A checksum/cloud-config-data (owned)': [A, Z],
  'report an apply on Node A (owned)': [A, Z],
  "set Node A's rollout permission permitted-checksum (the seed's)": [A, Z],
  'label Node A worker.gardener.cloud/pool (not owned)': [A, Z],
  'cordon Node A': [A, Z],
  'set Ready=False on Node A': [A, Z],
  'write Node A status images (not addresses)': [A, Z],
  'label Node A worker.gardener.cloud/pool through its status': [A, Z],
  'write Node A status addresses': [A, Z],
  'delete Node A': [Z, Z],
  'get Node B (same pool)': [A, Z],
  'annotate Node B (same pool)': [A, Z],
  'report an apply on Node B (same pool)': [A, Z],
  'taint Node B NoExecute': [A, Z],
  'set Ready=False on Node C (pool Q)': [A, Z],
  'list all Nodes': [A, Z],
  'create+update its Lease gardener-node-agent-A': [A, A],
  'update Lease of Node B': [A, A],
  'create Lease kube-system/kube-controller-manager-x': [A, A],
  'create a Lease in another namespace': [Z, Z],
  'create an Event about Node A': [A, Z],
  'create an Event about Node B': [A, Z],
  'rewrite an Event about Node B into one about Node A': [A, Z],
  'create an Event in another namespace': [A, Z],
  'list Events in all namespaces': [A, Z],
  'create a CertificateSigningRequest': [Z, A],
  'list all CertificateSigningRequests': [Z, A],
  'list the pods of Node A': [Z, Z],
  'list all pods': [Z, Z],
  "read Node A's kubelet /configz through the node proxy": [Z, Z],
  "read Node B's kubelet /configz through the node proxy": [Z, Z],
  'evict a pod of Node A': [Z, Z],
  'evict a pod of Node B': [Z, Z],
  'list namespaces': [Z, Z],
  'get a ConfigMap in kube-system': [Z, Z],
  'create a ClusterRoleBinding': [Z, Z],
};

function tokenClient(env: Envtest, token: string): KubeClient {
  const cluster = env.kubeConfig.getCurrentCluster()!;
  return new KubeClient(
    new KubeHttp(
      new RestConfig({ server: cluster.server, ca: Buffer.from(cluster.caData!, 'base64'), token }),
    ),
  );
}

/** Nodes A, B (pool P) and C (pool Q), node B's Lease, and a namespace of their own. */
async function prepare(
  env: Envtest,
  pools: { p: string; q: string },
  id: string,
): Promise<MatrixTarget & { cleanUp(): Promise<void> }> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const names = { nodeA: `matrix-a-${id}`, nodeB: `matrix-b-${id}`, nodeC: `matrix-c-${id}` };
  const pool = { nodeA: pools.p, nodeB: pools.p, nodeC: pools.q };
  for (const [key, name] of Object.entries(names))
    await core.createNode({
      body: {
        metadata: {
          name,
          labels: { [LABEL.hostname]: name, [LABEL.workerPool]: pool[key as keyof typeof pool] },
        },
      },
    });
  const objects = KubernetesObjectApi.makeApiClient(env.kubeConfig);
  const leaseB = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: `gardener-node-agent-${names.nodeB}`, namespace: 'kube-system' },
    spec: {},
  };
  await objects.create(leaseB as never);
  const otherNamespace = await createTestNamespace(env, 'matrix');
  const eventB = `${names.nodeB}.matrix`;
  await core.createNamespacedEvent({
    namespace: 'default',
    body: {
      metadata: { name: eventB, namespace: 'default' },
      involvedObject: { apiVersion: 'v1', kind: 'Node', name: names.nodeB },
      reason: 'Matrix',
      message: 'recorded about node B by someone else',
      type: 'Normal',
    },
  });
  const pods = { podA: `web-a-${id}`, podB: `web-b-${id}` };
  for (const [name, nodeName] of [
    [pods.podA, names.nodeA],
    [pods.podB, names.nodeB],
  ] as const)
    await core.createNamespacedPod({
      namespace: otherNamespace,
      body: {
        metadata: { name },
        spec: { nodeName, containers: [{ name: 'c', image: 'registry.example/web:1' }] },
      },
    });
  return {
    ...names,
    ...pods,
    eventB,
    oscP: '',
    oscQ: '',
    otherNamespace,
    async cleanUp() {
      for (const name of Object.values(names)) await core.deleteNode({ name }).catch(() => undefined);
      for (const lease of [names.nodeA, names.nodeB, 'kube-controller-manager-x'].map((n) =>
        n.startsWith('kube-') ? n : `gardener-node-agent-${n}`,
      ))
        await objects
          .delete({ ...leaseB, metadata: { name: lease, namespace: 'kube-system' } } as never)
          .catch(() => undefined);
      await core.deleteNamespace({ name: otherNamespace }).catch(() => undefined);
      await core.deleteNamespacedEvent({ name: eventB, namespace: 'default' }).catch(() => undefined);
    },
  };
}

function expectMatrix(
  results: readonly MatrixResult[],
  subjects: readonly [string, string],
  expected: Readonly<Record<string, readonly [Outcome, Outcome]>>,
): void {
  const wrong: string[] = [];
  for (const row of MATRIX_ROWS)
    subjects.forEach((subject, i) => {
      const actual = results.find((r) => r.subject === subject && r.request === row.request)?.outcome;
      if (actual !== expected[row.request]?.[i])
        wrong.push(`${subject}: ${row.request}: expected ${expected[row.request]?.[i]}, got ${actual}`);
    });
  expect(wrong).to.deep.equal([]);
}

describe('permission matrix', function () {
  this.timeout(300_000);
  const id = Date.now().toString(36);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'matrix-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('per-node identities: the agent of node A reaches only its own objects; a bootstrap token only its CSR', async function () {
    this.timeout(20 * 60_000);
    const l = await nodeIdentityLandscape();
    const cluster = l.shoot.kubeConfig.getCurrentCluster()!;
    // node A's agent obtains its identity as on a new machine, before its Node exists
    const root = join(dir, 'node-a');
    mkdirSync(join(root, PATH.nodeAgentCredentialsDir), { recursive: true });
    writeFileSync(join(root, PATH.nodeAgentBootstrapToken), await createBootstrapToken(l.shoot));
    const nodeA = `matrix-a-${id}`;
    await obtainNodeIdentity({
      config: {
        clientConnection: { kubeconfig: PATH.nodeAgentKubeconfig },
        server: {},
        apiServer: { server: cluster.server, caBundle: cluster.caData },
        controllers: {
          operatingSystemConfig: {},
          token: { syncConfigs: [], syncPeriod: parseGoDuration('1h') },
        },
      },
      root,
      nodeName: nodeA,
      log: silentLogger,
      pollIntervalMs: 200,
    });
    const agent = new KubeClient(
      new KubeHttp(await KubeconfigFileAccess.load(join(root, PATH.nodeAgentKubeconfig))),
    );
    const bootstrap = tokenClient(l.shoot, await createBootstrapToken(l.shoot));
    const target = await prepare(l.shoot, { p: 'cpu-worker', q: 'gpu-worker' }, id);
    try {
      const t = { ...target, oscP: l.oscSecrets.get('cpu-worker')!, oscQ: l.oscSecrets.get('gpu-worker')! };
      const subjects = ['agent of node A', 'bootstrap token'] as const;
      const results = [
        ...(await runMatrix(subjects[0], agent, t)),
        ...(await runMatrix(subjects[1], bootstrap, t)),
      ];
      process.stdout.write(
        `\n${formatMatrix('Per-node identities (node A in pool P)', subjects, results)}\n\n`,
      );
      expectMatrix(results, subjects, PER_NODE);
    } finally {
      await target.cleanUp();
      await agent.http.close();
      await bootstrap.http.close();
    }
  });

  it('the v1.91 shared ServiceAccount: what it still allows, and what a bootstrap token reads', async function () {
    this.timeout(20 * 60_000);
    const env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    const objects = KubernetesObjectApi.makeApiClient(env.kubeConfig);
    const rbac = render({
      target: 'shoot',
      now: DEFAULT_NOW,
      nodeAgentIdentity: 'serviceAccount',
    }).objects.filter((o) => String(o.apiVersion).startsWith('rbac.'));
    for (const o of rbac)
      await objects.patch(
        o as never,
        undefined,
        undefined,
        'matrix',
        true,
        'application/apply-patch+yaml' as never,
      );
    const shared = await env.kubeConfigForServiceAccount('kube-system', 'gardener-node-agent');
    const agent = new KubeClient(new KubeHttp(shared));
    const bootstrap = tokenClient(env, await createBootstrapToken(env));
    const target = await prepare(env, { p: 'cpu-worker', q: 'gpu-worker' }, id);
    try {
      // the names the rendered Role grants: the example's pools
      const t = {
        ...target,
        oscP: 'gardener-node-agent-cpu-worker-46fed',
        oscQ: 'gardener-node-agent-gpu-worker-45c61',
      };
      const subjects = ['shared ServiceAccount', 'bootstrap token'] as const;
      const results = [
        ...(await runMatrix(subjects[0], agent, t)),
        ...(await runMatrix(subjects[1], bootstrap, t)),
      ];
      process.stdout.write(
        `\n${formatMatrix('v1.91 shared ServiceAccount (compatibility mode)', subjects, results)}\n\n`,
      );
      expectMatrix(results, subjects, SHARED);
    } finally {
      await target.cleanUp();
      await agent.http.close();
      await bootstrap.http.close();
      for (const o of rbac) await objects.delete(o as never).catch(() => undefined);
    }
  });
});
