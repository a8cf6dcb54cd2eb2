/**
 * The rollout reconciler under faults, against real API servers (a seed for the status and the
 * events, a shoot for the Nodes): a permission patch that fails after the status was written
 * still announces the transition; events the API refused are announced by the next (restarted)
 * reconciler; a halt whose failure was NotReady survives deleting the status, from the marks on
 * the Nodes. The shoot's caches are stood in for by fresh lists of the real Nodes; a failing patch
 * is injected around the real client.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import {
  type Cluster,
  PERMITTED_CHECKSUM_ANNOTATION,
  ROLLOUT_FAILURE_ANNOTATION,
  ROLLOUT_STATUS_CONFIGMAP,
} from '../../api/index.js';
import { rolloutMetrics } from '../../controllers/rollout/metrics.js';
import type { NodeObject } from '../../controllers/rollout/observe.js';
import { RolloutReconciler } from '../../controllers/rollout/reconciler.js';
import { decodeRolloutStatus, type PoolRollout } from '../../controllers/rollout/state.js';
import {
  createTestNamespace,
  type Envtest,
  requireClusterScopedWrites,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { EventRecorder } from '../../runtime/events.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { silentLogger } from '../../runtime/logging.js';
import { SETTINGS } from '../controllers/support/rollout-pool.js';

const T0 = 'a'.repeat(64);
const T1 = 'b'.repeat(64);
const POOL = 'faults';

describe('rollout reconciler under faults against real API servers', function () {
  this.timeout(120_000);
  let seed: Envtest;
  let shoot: Envtest;
  let seedClient: KubeClient;
  let shootClient: KubeClient;
  let namespace: string;
  let nodes: NodeObject[] = [];
  const names = ['f1', 'f2', 'f3', 'f4'];

  before(async function () {
    this.timeout(20 * 60_000);
    [seed, shoot] = await Promise.all([startEnvtest({ name: 'seed' }), startEnvtest({ name: 'shoot' })]);
    requireClusterScopedWrites(shoot);
    seedClient = new KubeClient(new KubeHttp(seed.kubeConfig));
    shootClient = new KubeClient(new KubeHttp(shoot.kubeConfig));
    namespace = await createTestNamespace(seed, 'shoot--rollout-faults');
  });

  after(async () => {
    for (const n of names)
      await shootClient.delete(RESOURCE.node, { name: `${n}-${namespace}` }).catch(() => undefined);
  });

  const ctx = () => ({ signal: new AbortController().signal, log: silentLogger });
  const nodeName = (n: string) => `${n}-${namespace}`;

  async function refresh(): Promise<void> {
    nodes = (await shootClient.list<NodeObject>(RESOURCE.node)).filter((n) =>
      n.metadata?.name?.endsWith(namespace),
    );
  }

  async function setReady(name: string, ready: boolean): Promise<void> {
    const now = new Date();
    const condition = { type: 'Ready', status: ready ? 'True' : 'False', reason: 'Test' };
    await shoot.kubeConfig.makeApiClient(CoreV1Api).patchNodeStatus(
      {
        name,
        body: { status: { conditions: [{ ...condition, lastTransitionTime: now, lastHeartbeatTime: now }] } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  const cluster = {
    metadata: { name: 'c' },
    shoot: {
      metadata: { name: 'shoot', annotations: {} },
      spec: { provider: { workers: [{ name: POOL, machine: { image: { name: 'gardenlinux' } } }] } },
    },
  } as unknown as Cluster;

  /** A reconciler as one controller-manager process has it; `patch` wraps the shoot client's Node patch. */
  function reconciler(o: { recorder?: EventRecorder; failPatch?: () => boolean } = {}) {
    const recorder =
      o.recorder ??
      new EventRecorder({ http: new KubeHttp(seed.kubeConfig), component: 'gardener-osc-test' });
    return new RolloutReconciler({
      namespace,
      settings: { ...SETTINGS, settleTime: 1000, checkInterval: 500 },
      cluster: () => cluster,
      clusterAnnotations: () => ({}),
      shoot: {
        nodes: () => nodes,
        oscSecrets: () => [
          {
            metadata: {
              name: 'osc',
              labels: {
                'gardener.cloud/role': 'operating-system-config',
                'worker.gardener.cloud/pool': POOL,
              },
              annotations: { 'checksum/data-script': T1 },
            },
          },
        ],
        leases: () => [],
        releaseLeases: () => undefined,
      },
      shootClient: {
        mergePatch: (async (r, ref, body) => {
          if (o.failPatch?.())
            throw Object.assign(new Error('injected: the shoot API server is unavailable'), { status: 503 });
          return shootClient.mergePatch(r, ref, body);
        }) as KubeClient['mergePatch'],
      },
      seed: seedClient,
      recorder,
      eventObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'rollout-faults', namespace },
      metrics: rolloutMetrics(new Registry()),
    });
  }

  async function status(): Promise<PoolRollout | undefined> {
    const cm = await seedClient.getIfExists<{ data?: Record<string, string> }>(RESOURCE.configMap, {
      name: ROLLOUT_STATUS_CONFIGMAP,
      namespace,
    });
    return decodeRolloutStatus(cm?.data).get(POOL);
  }

  async function events(): Promise<string[]> {
    const list = await seedClient.list<{ reason?: string; message?: string }>(RESOURCE.event, { namespace });
    return list.map((e) => e.reason ?? '');
  }

  it('a permission patch that fails after the status write still announces the rollout and its wave', async () => {
    for (const [i, n] of names.entries())
      await shootClient.create(RESOURCE.node, {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: nodeName(n),
          labels: { 'worker.gardener.cloud/pool': POOL, 'topology.kubernetes.io/zone': 'abc'[i % 3]! },
          annotations: { 'checksum/cloud-config-data': T0, [PERMITTED_CHECKSUM_ANNOTATION]: T0 },
        },
      });
    for (const n of names) await setReady(nodeName(n), true);
    await refresh();
    let fail = true;
    const r = reconciler({ failPatch: () => fail });
    let error: unknown;
    await r.reconcile(namespace, ctx()).catch((e: unknown) => {
      error = e;
    });
    expect(String(error)).to.contain('injected');
    expect((await status())!.phase).to.equal('Progressing');
    expect(await events()).to.include.members(['RolloutStarted', 'RolloutWaveStarted']);
    expect((await status())!.announce, 'announced: nothing pending').to.equal(undefined);
    fail = false;
    await r.reconcile(namespace, ctx());
  });

  it('events the API refused are announced by the next, restarted reconciler', async () => {
    await refresh();
    const canary = (await status())!.members[0]!.node;
    // the canary goes NotReady while it applies; the event API refuses this process's events
    await setReady(canary, false);
    await refresh();
    const mute = new EventRecorder({
      http: new KubeHttp(await seed.kubeConfigForUser('no-events')),
      component: 'gardener-osc-test',
    });
    await reconciler({ recorder: mute }).reconcile(namespace, ctx());
    const halted = (await status())!;
    expect(halted.phase).to.equal('Halted');
    expect(halted.announce!.map((a) => a.reason)).to.deep.equal(['RolloutHalted']);
    expect(await events()).to.not.include('RolloutHalted');
    // restarted with a working recorder: the halt is announced, nothing stays pending
    await reconciler().reconcile(namespace, ctx());
    expect(await events()).to.include('RolloutHalted');
    expect((await status())!.announce).to.equal(undefined);
  });

  it('a halt by NotReady survives deleting the status: the marks on the Node halt it again, no canary', async () => {
    await refresh();
    const failed = (await status())!.failures[0]!.node;
    const node = await shootClient.get<NodeObject>(RESOURCE.node, { name: failed });
    expect(node.metadata?.annotations?.[ROLLOUT_FAILURE_ANNOTATION.checksum]).to.equal(T1);
    expect(node.metadata?.annotations?.[ROLLOUT_FAILURE_ANNOTATION.reason]).to.equal('NodeNotReady');
    await seedClient.delete(RESOURCE.configMap, { name: ROLLOUT_STATUS_CONFIGMAP, namespace });
    await refresh();
    await reconciler().reconcile(namespace, ctx());
    const again = (await status())!;
    expect(again).to.include({ phase: 'Halted', wave: 0 });
    expect(again.failures.map((f) => [f.node, f.reason])).to.deep.equal([[failed, 'NodeNotReady']]);
    await refresh();
    const permitted = nodes
      .filter((n) => n.metadata?.name !== failed)
      .map((n) => n.metadata?.annotations?.[PERMITTED_CHECKSUM_ANNOTATION]);
    expect(permitted, 'no other node got the configuration').to.deep.equal([T0, T0, T0]);
  });
});
