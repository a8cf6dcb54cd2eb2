import { expect } from 'chai';
import { Registry } from 'prom-client';
import { formatGoDuration } from '../../../api/index.js';
import {
  delayPatchBody,
  delayWindow,
  type NodeDelayPatchBody,
  NodeDelayReconciler,
  nodeDelayMetrics,
  type PatchOutcome,
  planNodeDelays,
} from '../../../controllers/node-delay/index.js';
import type { EventRecorder } from '../../../runtime/events.js';
import { silentLogger } from '../../../runtime/logging.js';

const S = 1e9;
const KEY = 'node-agent.gardener.cloud/reconciliation-delay';
const ZONE = 'topology.kubernetes.io/zone';

function node(name: string, zone: string, annotation?: string, extra: { deletionTimestamp?: string } = {}) {
  return {
    metadata: {
      name,
      resourceVersion: `rv-${name}`,
      labels: { [ZONE]: zone, 'other/label': 'x' },
      annotations: annotation === undefined ? { unrelated: 'y' } : { [KEY]: annotation },
      ...extra,
    },
    status: { conditions: [] },
  };
}

function twelve() {
  return Array.from({ length: 12 }, (_, i) => node(`node-${String(i).padStart(2, '0')}`, `z${i % 3}`));
}

/** The nodes with their annotations set as the plan says (what the API server holds afterwards). */
function applied(nodes: ReturnType<typeof node>[], delays: ReadonlyMap<string, number>) {
  return nodes.map((n) =>
    node(n.metadata.name, n.metadata.labels[ZONE]!, formatGoDuration(delays.get(n.metadata.name)!)),
  );
}

describe('node-delay controller: decisions', () => {
  it('a first assignment patches every node, with its resourceVersion and a Go duration', () => {
    const plan = planNodeDelays({ nodes: twelve(), minDelay: 0, maxDelay: 300 * S });
    expect(plan.patches).to.have.length(12);
    expect(plan.patches.every((p) => p.reason === 'new')).to.equal(true);
    const first = plan.patches[0]!;
    expect(first.body).to.deep.equal({
      metadata: {
        resourceVersion: `rv-${first.name}`,
        annotations: { [KEY]: formatGoDuration(first.delay) },
      },
    });
    expect(plan.patches.map((p) => p.body.metadata.annotations[KEY])).to.include('18.75s');
    for (const p of plan.patches) expect(p.delay).to.be.within(0, 300 * S);
  });

  it('annotations that already hold the assignment need no patch (a fixed point, e.g. after a restart)', () => {
    const nodes = twelve();
    const first = planNodeDelays({ nodes, minDelay: 0, maxDelay: 300 * S });
    const again = planNodeDelays({
      nodes: applied(nodes, first.assignment.delays),
      minDelay: 0,
      maxDelay: 300 * S,
    });
    expect(again.patches).to.deep.equal([]);
    expect([...again.assignment.delays]).to.deep.equal([...first.assignment.delays]);
  });

  it('a join patches the new node and at most 3 others', () => {
    const nodes = twelve();
    const first = planNodeDelays({ nodes, minDelay: 0, maxDelay: 300 * S });
    const joined = [...applied(nodes, first.assignment.delays), node('node-99', 'z1')];
    const plan = planNodeDelays({
      nodes: joined,
      previous: first.assignment.delays,
      minDelay: 0,
      maxDelay: 300 * S,
    });
    const others = plan.patches.filter((p) => p.name !== 'node-99');
    expect(plan.patches.find((p) => p.name === 'node-99')?.reason).to.equal('new');
    expect(others.length).to.be.at.most(3);
    for (const p of others) expect(p.reason).to.equal('moved');
  });

  it('nodes being deleted take no part and are never patched', () => {
    const nodes = [
      ...twelve(),
      node('node-gone', 'z0', undefined, { deletionTimestamp: '2024-01-01T00:00:00Z' }),
    ];
    const plan = planNodeDelays({ nodes, minDelay: 0, maxDelay: 300 * S });
    expect(plan.deleting).to.deep.equal(['node-gone']);
    expect(plan.assignment.delays.has('node-gone')).to.equal(false);
    expect(plan.patches.map((p) => p.name)).to.not.include('node-gone');
  });

  it('a tampered annotation is set back to the previous delay (reason corrected)', () => {
    const nodes = twelve();
    const first = planNodeDelays({ nodes, minDelay: 0, maxDelay: 300 * S });
    const now = applied(nodes, first.assignment.delays);
    now[4] = node('node-04', 'z1', '1s');
    const plan = planNodeDelays({
      nodes: now,
      previous: first.assignment.delays,
      minDelay: 0,
      maxDelay: 300 * S,
    });
    expect(plan.patches.map((p) => [p.name, p.reason, p.delay])).to.deep.equal([
      ['node-04', 'corrected', first.assignment.delays.get('node-04')],
    ]);
  });

  it('an equal delay written differently (60s for 1m0s) is rewritten in Go form', () => {
    const plan = planNodeDelays({
      nodes: [node('a', 'z0', '0s'), node('b', 'z1', '150s')],
      minDelay: 0,
      maxDelay: 300 * S,
    });
    expect(plan.patches.map((p) => [p.name, p.reason, p.body.metadata.annotations[KEY]])).to.deep.equal([
      ['b', 'corrected', '2m30s'],
    ]);
  });

  it('nodes that do not decode are reported and left out', () => {
    const plan = planNodeDelays({
      nodes: [node('a', 'z0'), { metadata: { name: 7 } }, {}],
      minDelay: 0,
      maxDelay: S,
    });
    expect([...plan.assignment.delays.keys()]).to.deep.equal(['a']);
    expect(plan.invalid).to.have.length(2);
    expect(plan.invalid[0]).to.match(/^nodes\[1\]\.metadata\.name: /);
  });

  it('delayPatchBody leaves out a missing resourceVersion', () => {
    expect(delayPatchBody(undefined, 75 * S)).to.deep.equal({
      metadata: { annotations: { [KEY]: '1m15s' } },
    });
  });

  it('the window: the shoot max delay, the default for rejected values, the min lowered to the max', () => {
    const annotation = 'shoot.gardener.cloud/cloud-config-execution-max-delay-seconds';
    expect(delayWindow(undefined, 0)).to.deep.include({ minDelay: 0, maxDelay: 300 * S });
    expect(delayWindow({ [annotation]: '60' }, 10 * S)).to.deep.include({
      minDelay: 10 * S,
      maxDelay: 60 * S,
    });
    const rejected = delayWindow({ [annotation]: 'soon' }, 0);
    expect(rejected.maxDelay).to.equal(300 * S);
    expect(rejected.maxDelaySource.source).to.equal('rejected');
    const lowered = delayWindow({ [annotation]: '30' }, 60 * S);
    expect(lowered).to.deep.include({ minDelay: 30 * S, maxDelay: 30 * S });
    expect(lowered.minLowered).to.match(/exceeds/);
  });
});

describe('node-delay controller: reconciler', () => {
  const ctx = () => ({ signal: new AbortController().signal, log: silentLogger });

  function setup(annotations: Record<string, string> = {}, acts?: () => boolean) {
    const nodes: unknown[] = twelve();
    const patches: { name: string; body: NodeDelayPatchBody }[] = [];
    const events: string[] = [];
    const outcomes: PatchOutcome[] = [];
    const registry = new Registry();
    const metrics = nodeDelayMetrics(registry);
    const recorder = {
      event: async (_o: unknown, type: string, reason: string, message: string) => {
        events.push(`${type} ${reason}: ${message}`);
      },
    } as unknown as EventRecorder;
    const reconciler = new NodeDelayReconciler({
      shoot: 'shoot--a--b',
      shootAnnotations: () => annotations,
      nodes: () => nodes,
      acts,
      patcher: {
        async patch(name, body) {
          patches.push({ name, body });
          return outcomes.shift() ?? 'patched';
        },
      },
      minDelay: 0,
      resyncPeriodMs: 60_000,
      patchConcurrency: 3,
      recorder,
      eventObject: { kind: 'Cluster', name: 'shoot--a--b' },
      metrics,
    });
    return { nodes, patches, events, outcomes, registry, metrics, reconciler };
  }

  it('patches every node once, counts them, and resyncs later', async () => {
    const t = setup();
    const result = await t.reconciler.reconcile('shoot--a--b', ctx());
    expect(result).to.deep.equal({ requeueAfterMs: 60_000 });
    expect(t.patches).to.have.length(12);
    expect((await t.metrics.nodesAnnotated.get()).values).to.deep.equal([
      { value: 12, labels: { shoot: 'shoot--a--b', reason: 'new' } },
    ]);
    expect((await t.metrics.nodes.get()).values[0]?.value).to.equal(12);
    expect((await t.metrics.patches.get()).values[0]).to.deep.include({ value: 12 });
  });

  it('writes nothing while the shoot is left to gardener-resource-manager, and everything once it is not', async () => {
    let acts = false;
    const t = setup({}, () => acts);
    expect(await t.reconciler.reconcile('shoot--a--b', ctx())).to.deep.equal({ requeueAfterMs: 60_000 });
    expect(t.patches).to.deep.equal([]);
    expect(t.reconciler.assignment).to.equal(undefined);
    acts = true;
    await t.reconciler.reconcile('shoot--a--b', ctx());
    expect(t.patches).to.have.length(12);
  });

  it('requeues soon on a conflict, backing off, and patches again with the newer resourceVersion', async () => {
    const t = setup();
    t.outcomes.push('conflict');
    const first = await t.reconciler.reconcile('k', ctx());
    expect(first).to.deep.equal({ requeueAfterMs: 100 });
    const conflicted = t.patches[0]!.name;
    // the cache catches up: every node as written, the conflicted one with a new resourceVersion
    const delays = t.reconciler.assignment!;
    t.nodes.splice(0, t.nodes.length, ...applied(twelve(), delays));
    const i = t.nodes.findIndex((n) => (n as { metadata: { name: string } }).metadata.name === conflicted);
    t.nodes[i] = {
      metadata: {
        name: conflicted,
        resourceVersion: 'rv-new',
        labels: { [ZONE]: `z${Number(conflicted.slice(5)) % 3}` },
      },
    };
    t.patches.length = 0;
    t.outcomes.push('conflict');
    expect(await t.reconciler.reconcile('k', ctx())).to.deep.equal({ requeueAfterMs: 200 });
    expect(t.patches.map((p) => [p.name, p.body.metadata.resourceVersion])).to.deep.equal([
      [conflicted, 'rv-new'],
    ]);
    expect(t.patches[0]!.body.metadata.annotations[KEY]).to.equal(formatGoDuration(delays.get(conflicted)!));
    t.patches.length = 0;
    expect(await t.reconciler.reconcile('k', ctx())).to.deep.equal({ requeueAfterMs: 60_000 });
    expect(t.patches).to.have.length(1);
  });

  it('a rejected max delay is one Warning event (not one per reconcile), and the default is used', async () => {
    const t = setup({ 'shoot.gardener.cloud/cloud-config-execution-max-delay-seconds': '-5' });
    await t.reconciler.reconcile('k', ctx());
    await t.reconciler.reconcile('k', ctx());
    expect(t.events).to.deep.equal([
      'Warning MaxDelayRejected: annotation shoot.gardener.cloud/cloud-config-execution-max-delay-seconds: -5 is negative; using the default 300s',
    ]);
    expect(Math.max(...t.reconciler.assignment!.values())).to.be.within(200 * S, 300 * S);
  });

  it('a patch error fails the reconcile after the other patches ran', async () => {
    const t = setup();
    let calls = 0;
    const failing = new NodeDelayReconciler({
      shoot: 's',
      shootAnnotations: () => ({}),
      nodes: () => t.nodes,
      patcher: {
        async patch() {
          calls++;
          if (calls === 2) throw new Error('boom');
          return 'patched';
        },
      },
      minDelay: 0,
      resyncPeriodMs: 1000,
      patchConcurrency: 2,
      eventObject: { kind: 'Cluster', name: 's' },
    });
    let error: unknown;
    await failing.reconcile('k', ctx()).catch((e) => {
      error = e;
    });
    expect((error as Error).message).to.equal('boom');
    expect(calls).to.equal(12);
  });
});
