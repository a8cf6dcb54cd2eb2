/** The node-delay controller against real seed and shoot API servers. */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import {
  type Cluster,
  decodeCluster,
  formatGoDuration,
  parseGoDuration,
  parseYaml,
} from '../../api/index.js';
import { addNodeDelayController, type RunningNodeDelayController } from '../../controllers/node-delay/add.js';
import { sameZoneNeighbours, smallestGap } from '../../controllers/node-delay/measures.js';
import { nodeDelayMetrics } from '../../controllers/node-delay/metrics.js';
import {
  type Envtest,
  readAuditEvents,
  requireClusterScopedWrites,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { EventRecorder } from '../../runtime/events.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { silentLogger } from '../../runtime/logging.js';
import { runtimeMetrics } from '../../runtime/metrics.js';
import type { ProcessContext } from '../../seed/manager/context.js';
import { shootContext } from '../../seed/manager/shoots.js';

const KEY = 'node-agent.gardener.cloud/reconciliation-delay';
const ZONE = 'topology.kubernetes.io/zone';
const MAX_DELAY = 'shoot.gardener.cloud/cloud-config-execution-max-delay-seconds';
const S = 1e9;

function exampleCluster(name: string, shootAnnotations: Record<string, string>): Cluster {
  const raw = parseYaml(readFileSync(join(import.meta.dirname, '../../examples/cluster.yaml'), 'utf8'));
  const decoded = decodeCluster(raw);
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
  const c = decoded.value;
  return {
    ...c,
    name,
    shoot: { ...c.shoot, metadata: { ...c.shoot.metadata, annotations: shootAnnotations } },
  };
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('node-delay controller against real API servers', function () {
  this.timeout(120_000);
  const suffix = randomBytes(3).toString('hex');
  const selector = `node-delay-test=${suffix}`;
  const clusterName = `shoot--nd--${suffix}`;
  const user = `node-delay-controller-${suffix}`;
  let seed: Envtest;
  let shoot: Envtest;
  let core: CoreV1Api;
  let seedCore: CoreV1Api;
  let controllerKubeConfig: KubeConfig;
  /** The controller in a shoot context of its own (API client, cache), running until `signal` aborts. */
  const https: KubeHttp[] = [];
  const start = (signal: AbortSignal) =>
    addNodeDelayController(
      shootContext({
        namespace: clusterName,
        cluster: () => cluster,
        http: https[https.push(new KubeHttp(controllerKubeConfig)) - 1]!,
        log: silentLogger,
        metrics: env.metrics,
        signal,
      }),
      env,
      options,
    );
  let cluster: Cluster;
  let env: ProcessContext;
  let running: RunningNodeDelayController;
  const stop = new AbortController();
  let restart = new AbortController();
  const options = { minDelay: 10 * S, batchDelayMs: 200, resyncPeriodMs: 1500, nodeLabelSelector: selector };

  const nodeName = (i: number | string) => `nd-${suffix}-${String(i).padStart(2, '0')}`;

  async function createNode(i: number | string, zone: string, finalizers?: string[]): Promise<void> {
    await core.createNode({
      body: {
        metadata: {
          name: nodeName(i),
          labels: { 'node-delay-test': suffix, [ZONE]: zone },
          ...(finalizers ? { finalizers } : {}),
        },
      },
    });
  }

  async function nodes(): Promise<V1Node[]> {
    return (await core.listNode({ labelSelector: selector })).items;
  }

  /** The annotations of the live nodes once they all hold the controller's latest assignment. */
  async function settled(): Promise<Map<string, string>> {
    return eventually(
      'every node to hold its assigned delay',
      async () => {
        const assignment = running.reconciler.assignment;
        if (!assignment) return undefined;
        const live = (await nodes()).filter((n) => !n.metadata?.deletionTimestamp);
        if (live.length !== assignment.size) return undefined;
        const out = new Map<string, string>();
        for (const n of live) {
          const name = n.metadata!.name!;
          const value = n.metadata?.annotations?.[KEY];
          const want = assignment.get(name);
          if (want === undefined || value !== formatGoDuration(want)) return undefined;
          out.set(name, value);
        }
        return out;
      },
      30_000,
    );
  }

  function changedOthers(before: Map<string, string>, after: Map<string, string>, except: string): string[] {
    return [...after]
      .filter(([name, v]) => name !== except && before.has(name) && before.get(name) !== v)
      .map(([n]) => n);
  }

  before(async function () {
    this.timeout(20 * 60_000);
    [seed, shoot] = await Promise.all([startEnvtest({ name: 'seed' }), startEnvtest({ name: 'shoot' })]);
    requireClusterScopedWrites(shoot);
    core = shoot.kubeConfig.makeApiClient(CoreV1Api);
    seedCore = seed.kubeConfig.makeApiClient(CoreV1Api);
    // its own identity (an admin), so the audit log tells its requests apart
    controllerKubeConfig = await shoot.kubeConfigForUser(user, ['system:masters']);
    cluster = exampleCluster(clusterName, { [MAX_DELAY]: '120' });
    env = {
      log: silentLogger,
      metrics: runtimeMetrics(new Registry()),
      recorder: new EventRecorder({ http: new KubeHttp(seed.kubeConfig), component: 'gardener-osc-test' }),
    };
  });

  after(async () => {
    stop.abort();
    await running?.stopped();
    await Promise.all(https.map((h) => h.close()));
    for (const n of (await nodes().catch(() => [])) ?? []) {
      const name = n.metadata!.name!;
      if (n.metadata?.finalizers?.length)
        await core
          .patchNode({ name, body: { metadata: { finalizers: null } } }, mergePatch)
          .catch(() => undefined);
      await core.deleteNode({ name }).catch(() => undefined);
    }
    const events = await seedCore
      .listNamespacedEvent({ namespace: 'default', fieldSelector: `involvedObject.name=${clusterName}` })
      .catch(() => undefined);
    for (const e of events?.items ?? [])
      await seedCore
        .deleteNamespacedEvent({ name: e.metadata!.name!, namespace: 'default' })
        .catch(() => undefined);
  });

  it('annotates 12 nodes in 3 zones within [min, max], spread and zone-interleaved', async () => {
    for (let i = 0; i < 12; i++) await createNode(i, `zone-${i % 3}`);
    running = start(AbortSignal.any([stop.signal, restart.signal]));
    await running.synced();
    const delays = await settled();
    expect(delays.size).to.equal(12);
    const placed = [...delays].map(([name, text]) => ({
      name,
      zone: `zone-${Number(name.slice(-2)) % 3}`,
      delay: parseGoDuration(text),
    }));
    for (const p of placed) expect(p.delay).to.be.within(10 * S, 120 * S);
    expect(new Set(placed.map((p) => p.delay)).size).to.equal(12);
    expect(smallestGap(placed)).to.be.at.least(Math.floor((110 * S) / 24));
    expect(sameZoneNeighbours(placed)).to.equal(0);
    const metrics = nodeDelayMetrics(env.metrics.registry);
    expect((await metrics.nodes.get()).values).to.deep.equal([{ value: 12, labels: { shoot: clusterName } }]);
  });

  it('a join changes at most 3 other annotations', async () => {
    const before = await settled();
    await createNode(12, 'zone-1');
    const after = await eventually('the new node in the assignment', async () => {
      const s = await settled();
      return s.has(nodeName(12)) ? s : undefined;
    });
    expect(changedOthers(before, after, nodeName(12)).length).to.be.at.most(3);
  });

  it('a leave changes at most 3 other annotations', async () => {
    const before = await settled();
    await core.deleteNode({ name: nodeName(5) });
    const after = await eventually('the node gone from the assignment', async () => {
      const s = await settled();
      return s.has(nodeName(5)) ? undefined : s;
    });
    expect(after.size).to.equal(12);
    expect(changedOthers(before, after, nodeName(5)).length).to.be.at.most(3);
  });

  it('sets a tampered annotation back', async () => {
    const before = await settled();
    const victim = nodeName(7);
    await core.patchNode({ name: victim, body: { metadata: { annotations: { [KEY]: '1s' } } } }, mergePatch);
    await eventually('the annotation restored', async () => {
      const n = await core.readNode({ name: victim });
      return n.metadata?.annotations?.[KEY] === before.get(victim);
    });
    expect(await settled()).to.deep.equal(before);
  });

  it('a restarted controller keeps every delay from the annotations (no patches)', async () => {
    const before = await settled();
    const metrics = nodeDelayMetrics(env.metrics.registry);
    const patches = async () => (await metrics.patches.get()).values.reduce((sum, v) => sum + v.value, 0);
    restart.abort();
    await running.stopped();
    const count = await patches();
    restart = new AbortController();
    running = start(AbortSignal.any([stop.signal, restart.signal]));
    await running.synced();
    await eventually('the first reconcile', () => running.reconciler.assignment !== undefined);
    expect(await settled()).to.deep.equal(before);
    expect(await patches()).to.equal(count);
  });

  it('never patches a node being deleted, and treats it as gone', async () => {
    const name = nodeName('fin');
    await createNode('fin', 'zone-2', ['test.gardener.cloud/keep']);
    await eventually('the new node annotated', async () => (await settled()).has(name));
    await core.deleteNode({ name });
    await eventually('the terminating node out of the assignment', async () => {
      const s = await settled();
      return !s.has(name) && running.reconciler.assignment?.has(name) === false;
    });
    await core.patchNode({ name, body: { metadata: { annotations: { [KEY]: '1s' } } } }, mergePatch);
    await sleep(1500); // several batch delays and a resync
    expect((await core.readNode({ name })).metadata?.annotations?.[KEY]).to.equal('1s');
    await core.patchNode({ name, body: { metadata: { finalizers: null } } }, mergePatch);
  });

  it('a rejected max delay is a Warning event on the Cluster, and the default window applies', async () => {
    cluster = exampleCluster(clusterName, { [MAX_DELAY]: 'two minutes' });
    const event = await eventually(
      'the Warning event',
      async () =>
        (
          await seedCore.listNamespacedEvent({
            namespace: 'default',
            fieldSelector: `involvedObject.name=${clusterName}`,
          })
        ).items.find((e) => e.reason === 'MaxDelayRejected'),
      15_000,
    );
    expect(event.type).to.equal('Warning');
    expect(event.involvedObject.kind).to.equal('Cluster');
    expect(event.message).to.equal(
      `annotation ${MAX_DELAY}: "two minutes" is not an integer number of seconds; using the default 300s`,
    );
    const delays = await eventually('delays in the 300 s window', async () => {
      const s = await settled();
      return [...s.values()].some((v) => parseGoDuration(v) > 120 * S) ? s : undefined;
    });
    for (const v of delays.values()) expect(parseGoDuration(v)).to.be.within(10 * S, 300 * S);
  });

  it('only ever reads and patches Nodes in the shoot', async function () {
    if (!shoot.auditLogPath) this.skip();
    await settled();
    const mine = await eventually('audit events of the controller', () => {
      const events = readAuditEvents(shoot).filter((e) => e.user.username === user);
      return events.length > 0 ? events : undefined;
    });
    const requests = mine.filter((e) => e.stage === 'ResponseComplete' || e.stage === 'ResponseStarted');
    for (const e of requests) {
      expect(e.requestURI, e.verb).to.match(/^\/api\/v1\/nodes(\?|\/|$)/);
      expect(['list', 'watch', 'patch']).to.include(e.verb);
    }
    const metrics = nodeDelayMetrics(env.metrics.registry);
    const patched =
      (await metrics.patches.get()).values.find((v) => v.labels.result === 'patched')?.value ?? 0;
    const auditedPatches = requests.filter(
      (e) => e.verb === 'patch' && e.stage === 'ResponseComplete',
    ).length;
    expect(auditedPatches).to.be.at.least(patched);
    expect(patched).to.be.greaterThan(12);
  });
});
