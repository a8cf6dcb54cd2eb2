/**
 * The drain with a node agent's own identity, on the node identity landscape (the node agent
 * authorizer and admission policy in a real kube-apiserver): the agent of node A cordons its Node,
 * evicts the pod bound to it and leaves node B's pod alone, waits for Ready and uncordons, every
 * request made with its own client certificate (docs/least-disruption.md, docs/security.md).
 */
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import { LABEL, NODE_AGENT_GROUP, nodeAgentUserName } from '../../api/index.js';
import { createTestNamespace } from '../../hack/landscape/envtest.js';
import {
  CORDONED_BY_AGENT_ANNOTATION,
  kubeNodeDrain,
} from '../../node-agent/controllers/operatingsystemconfig/kube-node-drain.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type NodeIdentityLandscape, nodeIdentityLandscape } from './node-identity-landscape.js';

describe('node agent: a drain with its own identity', function () {
  this.timeout(120_000);
  const id = Date.now().toString(36);
  const nodeA = `drain-a-${id}`;
  const nodeB = `drain-b-${id}`;
  let l: NodeIdentityLandscape;
  let core: CoreV1Api;
  let agent: KubeClient;
  let ns: string;

  before(async function () {
    this.timeout(20 * 60_000);
    l = await nodeIdentityLandscape();
    core = l.shoot.kubeConfig.makeApiClient(CoreV1Api);
    ns = await createTestNamespace(l.shoot, 'drain-identity');
    const now = new Date();
    for (const name of [nodeA, nodeB]) {
      await core.createNode({
        body: { metadata: { name, labels: { [LABEL.hostname]: name, [LABEL.workerPool]: 'cpu-worker' } } },
      });
      await core.replaceNodeStatus({
        name,
        body: {
          ...(await core.readNode({ name })),
          status: {
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'Test',
                lastHeartbeatTime: now,
                lastTransitionTime: now,
              },
            ],
          },
        },
      });
    }
    for (const [name, nodeName] of [
      ['web-a', nodeA],
      ['web-b', nodeB],
    ] as const)
      await core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name },
          spec: { nodeName, containers: [{ name: 'c', image: 'registry.example/web:1' }] },
        },
      });
    agent = new KubeClient(
      new KubeHttp(await l.shoot.kubeConfigForUser(nodeAgentUserName(nodeA), [NODE_AGENT_GROUP])),
    );
  });

  after(async () => {
    for (const name of [nodeA, nodeB]) await core?.deleteNode({ name }).catch(() => undefined);
    await core?.deleteNamespace({ name: ns }).catch(() => undefined);
    await agent?.http.close();
  });

  it('cordons its Node, evicts only the pod bound to it, and uncordons once Ready', async () => {
    // no kubelet ends the evicted pod here: the wait for it to go gives up quickly and the drain goes on
    const drain = kubeNodeDrain(agent, nodeA, {
      retryMs: 100,
      evictTimeoutMs: 20_000,
      terminatingTimeoutMs: 500,
    });
    await drain.cordon();
    const cordoned = await core.readNode({ name: nodeA });
    expect(cordoned.spec?.unschedulable).to.equal(true);
    expect(cordoned.metadata?.annotations?.[CORDONED_BY_AGENT_ANNOTATION]).to.equal('true');
    await drain.evictPods();
    const pod = (name: string): Promise<V1Pod> => core.readNamespacedPod({ name, namespace: ns });
    expect((await pod('web-a')).metadata?.deletionTimestamp, 'web-a evicted').to.not.equal(undefined);
    expect((await pod('web-b')).metadata?.deletionTimestamp, 'web-b untouched').to.equal(undefined);
    await drain.waitReady();
    await drain.uncordon();
    const uncordoned = await core.readNode({ name: nodeA });
    expect(uncordoned.spec?.unschedulable ?? false).to.equal(false);
    expect(uncordoned.metadata?.annotations?.[CORDONED_BY_AGENT_ANNOTATION]).to.equal(undefined);
    // and node B's pod is not its to evict, whatever it asks
    const refused = await agent
      .createSubresource(RESOURCE.pod, { namespace: ns, name: 'web-b' }, 'eviction', {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { namespace: ns, name: 'web-b' },
      })
      .then(
        () => 'allowed',
        (e: unknown) => String(e),
      );
    expect(refused).to.match(/bound to Node drain-b-\w+, not to its Node drain-a-/);
  });
});
