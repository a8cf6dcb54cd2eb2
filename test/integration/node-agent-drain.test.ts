/**
 * DrainAndRestart's drain against a real kube-apiserver (envtest: no kubelet, no controllers): a
 * Pod bound to the Node under a PodDisruptionBudget is evicted only as the budget allows, the
 * cordon is the agent's and goes once the Node is Ready, and an operator's cordon stays. Without a
 * disruption controller the test plays it, writing the budget's status.
 */
import type { V1Node, V1Pod, V1PodDisruptionBudget } from '@kubernetes/client-node';
import { CoreV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { createTestNamespace, type Envtest, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventuallyPasses } from '../../hack/landscape/eventually.js';
import {
  CORDONED_BY_AGENT_ANNOTATION,
  kubeNodeDrain,
} from '../../node-agent/controllers/operatingsystemconfig/kube-node-drain.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { loadKubeconfigFile } from '../../runtime/kube/kubeconfig-file.js';

describe('node agent: the drain of a DrainAndRestart against a real kube-apiserver', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let policy: PolicyV1Api;
  let ns: string;
  let http: KubeHttp;
  let client: KubeClient;

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'seed' });
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    policy = env.kubeConfig.makeApiClient(PolicyV1Api);
    ns = await createTestNamespace(env, 'drain');
    http = new KubeHttp(await loadKubeconfigFile(env.kubeconfigFile));
    client = new KubeClient(http);
  });

  after(async () => {
    await http?.close();
  });

  const node = (name: string, unschedulable = false): V1Node => ({
    metadata: { name },
    spec: { unschedulable },
  });

  const pod = (name: string, nodeName: string): V1Pod => ({
    metadata: { name, namespace: ns, labels: { app: 'web' } },
    spec: { nodeName, containers: [{ name: 'c', image: 'registry.example/web:1' }] },
  });

  async function setReady(name: string, status: 'True' | 'False') {
    const now = new Date();
    await core.replaceNodeStatus({
      name,
      body: {
        ...(await core.readNode({ name })),
        status: {
          conditions: [
            { type: 'Ready', status, reason: 'Test', lastHeartbeatTime: now, lastTransitionTime: now },
          ],
        },
      },
    });
  }

  /** The kubelet's part: the pod runs and is Ready, so the budget counts it as healthy. */
  async function createRunning(body: V1Pod) {
    await core.createNamespacedPod({ namespace: ns, body });
    const name = body.metadata?.name ?? '';
    const created = await core.readNamespacedPod({ name, namespace: ns });
    const now = new Date();
    await core.replaceNamespacedPodStatus({
      name,
      namespace: ns,
      body: {
        ...created,
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }],
        },
      },
    });
  }

  /** The disruption controller's part: the budget allows `allowed` more disruptions now. */
  async function allow(name: string, allowed: number, healthy: number) {
    const pdb = await policy.readNamespacedPodDisruptionBudget({ name, namespace: ns });
    await policy.replaceNamespacedPodDisruptionBudgetStatus({
      name,
      namespace: ns,
      body: {
        ...pdb,
        status: {
          observedGeneration: pdb.metadata?.generation,
          disruptionsAllowed: allowed,
          currentHealthy: healthy,
          desiredHealthy: healthy - allowed,
          expectedPods: healthy,
        },
      } as V1PodDisruptionBudget,
    });
  }

  const livePods = async () =>
    (await core.listNamespacedPod({ namespace: ns })).items
      .filter((p) => !p.metadata?.deletionTimestamp)
      .map((p) => p.metadata?.name)
      .sort();

  it('evicts the pods only as their PodDisruptionBudget allows, then uncordons once Ready', async () => {
    const name = 'drain-node-a';
    await core.createNode({ body: node(name) });
    await setReady(name, 'True');
    await createRunning(pod('web-1', name));
    await createRunning(pod('web-2', name));
    await createRunning(pod('elsewhere', 'another-node'));
    await policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
      },
    });
    await allow('web', 1, 2);

    const drain = kubeNodeDrain(client, name, { retryMs: 100, terminatingTimeoutMs: 0 });
    await drain.cordon();
    const cordoned = await core.readNode({ name });
    expect(cordoned.spec?.unschedulable).to.equal(true);
    expect(cordoned.metadata?.annotations?.[CORDONED_BY_AGENT_ANNOTATION]).to.equal('true');

    const evicting = drain.evictPods();
    // one eviction allowed: one pod goes, the budget (decremented by the API server) holds the other
    await eventuallyPasses(async () => expect(await livePods()).to.have.length(2), 10_000);
    await new Promise((r) => setTimeout(r, 1_000));
    const held = await livePods();
    expect(held).to.have.length(2);
    expect(held).to.include('elsewhere');
    // the budget allows one more (a replacement became healthy elsewhere): the drain completes
    await allow('web', 1, 2);
    await evicting;
    expect(await livePods()).to.deep.equal(['elsewhere']);

    // the restart made the node NotReady for a moment: no uncordon before Ready
    await setReady(name, 'False');
    const ready = drain.waitReady();
    await new Promise((r) => setTimeout(r, 500));
    await setReady(name, 'True');
    await ready;
    await drain.uncordon();
    const after = await core.readNode({ name });
    expect(after.spec?.unschedulable ?? false).to.equal(false);
    expect(after.metadata?.annotations?.[CORDONED_BY_AGENT_ANNOTATION]).to.equal(undefined);
  });

  it("leaves an operator's cordon in place", async () => {
    const name = 'drain-node-b';
    await core.createNode({ body: node(name, true) });
    await setReady(name, 'True');
    const drain = kubeNodeDrain(client, name, { retryMs: 100, terminatingTimeoutMs: 0 });
    await drain.cordon();
    await drain.evictPods();
    await drain.waitReady();
    await drain.uncordon();
    expect((await core.readNode({ name })).spec?.unschedulable).to.equal(true);
  });

  it('gives up when the budget never allows, naming the pods it waited for', async () => {
    const name = 'drain-node-c';
    await core.createNode({ body: node(name) });
    await createRunning({
      ...pod('db-1', name),
      metadata: { name: 'db-1', namespace: ns, labels: { app: 'db' } },
    });
    await policy.createNamespacedPodDisruptionBudget({
      namespace: ns,
      body: {
        metadata: { name: 'db' },
        spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'db' } } },
      },
    });
    await allow('db', 0, 1);
    const drain = kubeNodeDrain(client, name, {
      retryMs: 100,
      evictTimeoutMs: 1_000,
      terminatingTimeoutMs: 0,
    });
    const error = await drain.evictPods().catch((e: Error) => e);
    expect(String(error)).to.contain(`${ns}/db-1 blocked by a PodDisruptionBudget`);
  });
});
