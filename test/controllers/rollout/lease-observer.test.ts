/**
 * Lease freshness by the seed's clock (controllers/rollout/lease-observer.ts): a Lease is fresh
 * while the seed saw it change within its duration, whatever the agent's clock says; a Lease first
 * seen (the gate started, or restarted after an outage) gets a full lease duration; most Leases
 * stale together is the seed not seeing, never a node failure.
 */
import { expect } from 'chai';
import { LeaseObserver } from '../../../controllers/rollout/lease-observer.js';
import type { LeaseObject } from '../../../controllers/rollout/observe.js';
import { decide, node, pool, START } from '../support/rollout-pool.js';

const leaseName = (n: string) => `gardener-node-agent-${n}`;
const iso = (ms: number) => new Date(ms).toISOString();

/** The Lease of `node` as its agent last wrote it: its own clock's renewTime, a new resourceVersion. */
function lease(node: string, renewTime: number, rv: number): LeaseObject {
  return {
    metadata: { name: leaseName(node), resourceVersion: String(rv) },
    spec: { renewTime: iso(renewTime), leaseDurationSeconds: 40 },
  };
}

describe('rollout: Lease freshness by the seed clock', () => {
  it('a healthy node whose clock is 60 s behind stays fresh while it renews', () => {
    const o = new LeaseObserver();
    const nodes = ['slow', 'b', 'c'];
    for (let t = 0; t <= 300_000; t += 10_000) {
      const j = o.judge(
        nodes,
        nodes.map((n) => lease(n, START + t - (n === 'slow' ? 60_000 : 0), t)),
        leaseName,
        START + t,
      );
      expect(j.nodes.get('slow')!.fresh, `at ${t / 1000}s`).to.equal(true);
    }
  });

  it('a dead agent whose clock is an hour ahead goes stale a lease duration after its last renewal was seen', () => {
    const o = new LeaseObserver();
    // the gate watches since before (the start's grace is over)
    o.judge(['b'], [lease('b', START - 100_000, 1)], leaseName, START - 100_000);
    const ahead = START + 3600_000;
    const live = (t: number) => [
      lease('fast', ahead, 1),
      lease('b', START + t, t + 2),
      lease('c', START + t, t + 2),
    ];
    expect(o.judge(['fast', 'b', 'c'], live(0), leaseName, START).nodes.get('fast')!.fresh).to.equal(true);
    expect(
      o.judge(['fast', 'b', 'c'], live(40_000), leaseName, START + 40_000).nodes.get('fast')!.fresh,
    ).to.equal(true);
    const j = o.judge(['fast', 'b', 'c'], live(41_000), leaseName, START + 41_000);
    expect(j.nodes.get('fast')).to.include({ fresh: false, staleSince: START + 40_000, observedAt: START });
    expect(j.unobservable).to.equal(false);
  });

  it('after a (re)start a Lease is not stale before the gate watched it for two lease durations (the authorizer’s denial cache, then its own)', () => {
    const o = new LeaseObserver();
    // the controller-manager was down for an hour: every renewTime is old when it starts
    const old = START - 3600_000;
    const nodes = ['a', 'b', 'c', 'd'];
    const first = o.judge(
      nodes,
      nodes.map((n) => lease(n, old, 1)),
      leaseName,
      START,
    );
    expect([...first.nodes.values()].map((s) => s.fresh)).to.deep.equal([true, true, true, true]);
    // the agents renew again once the authorizer answers, all but d
    const renewed = nodes.map((n) => (n === 'd' ? lease(n, old, 1) : lease(n, START + 30_000, 2)));
    expect(o.judge(nodes, renewed, leaseName, START + 80_000).nodes.get('d')!.fresh).to.equal(true);
    const later = o.judge(nodes, renewed, leaseName, START + 80_001);
    expect(later.nodes.get('d')!.fresh, 'd alone stayed silent: its own failure').to.equal(false);
    expect(later.unobservable).to.equal(false);
  });

  it('a node without any Lease counts from when the gate started watching', () => {
    const o = new LeaseObserver();
    const others = [lease('b', START, 1), lease('c', START, 1)];
    expect(o.judge(['a', 'b', 'c'], others, leaseName, START).nodes.get('a')!.fresh).to.equal(true);
    const renew = [lease('b', START + 81_000, 2), lease('c', START + 81_000, 2)];
    expect(o.judge(['a', 'b', 'c'], renew, leaseName, START + 80_000).nodes.get('a')!.fresh).to.equal(true);
    expect(o.judge(['a', 'b', 'c'], renew, leaseName, START + 81_000).nodes.get('a')!.fresh).to.equal(false);
  });

  it('Nodes without any Lease (no agent yet, a legacy node) do not make the shoot look unseen', () => {
    // a's agent went silent while b's renews; three legacy nodes have no agent and no Lease
    const two = ['a', 'b', 'legacy1', 'legacy2', 'legacy3'];
    const o2 = new LeaseObserver();
    o2.judge(two, [lease('a', START, 1), lease('b', START, 1)], leaseName, START);
    const k = o2.judge(
      two,
      [lease('a', START, 1), lease('b', START + 90_000, 2)],
      leaseName,
      START + 100_000,
    );
    expect(k).to.include({ unobservable: false, stale: 1, total: 2 });
    expect(k.nodes.get('a')!.fresh).to.equal(false);
  });

  it('most Leases stale together: the seed cannot see, no node is judged by its Lease', () => {
    const o = new LeaseObserver();
    const nodes = ['a', 'b', 'c', 'd'];
    const frozen = nodes.map((n) => lease(n, START, 1));
    o.judge(nodes, frozen, leaseName, START);
    const j = o.judge(nodes, frozen, leaseName, START + 100_000);
    expect(j).to.include({ unobservable: true, stale: 4, total: 4 });
    expect([...j.nodes.values()].map((s) => s.fresh)).to.deep.equal([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    // half of them renewed: the rest are judged again
    const half = nodes.map((n, i) => (i < 2 ? lease(n, START + 101_000, 2) : lease(n, START, 1)));
    const back = o.judge(nodes, half, leaseName, START + 101_000);
    expect(back.unobservable).to.equal(false);
    expect(back.nodes.get('c')!.fresh).to.equal(false);
  });

  it('a wave whose Leases all went stale during an outage waits instead of halting on LeaseExpired', () => {
    const nodes = pool(4);
    const d = decide(nodes, undefined, START);
    const applied = nodes.map((n) =>
      n.name === 'n01'
        ? {
            ...n,
            applied: d.state!.target,
            permitted: d.state!.target,
            report: {
              checksum: d.state!.target,
              result: 'Succeeded' as const,
              reason: 'Applied',
              message: '',
            },
          }
        : n,
    );
    const seen = decide(applied, d.state, START + 10_000);
    expect(seen.state!.members[0]!.healthySince).to.equal(START + 10_000);
    // what the observer says while the Leases cannot be seen: unknown, not stale
    const blind = applied.map((n) => ({ ...n, leaseFresh: undefined }));
    const during = decide(blind, seen.state, START + 400_000);
    expect(during.halted).to.equal(false);
    expect(during.state!.phase).to.equal('Progressing');
    // and a single stale Lease in a shoot that is otherwise seen is the node's failure
    const one = applied.map((n) => (n.name === 'n01' ? { ...n, leaseFresh: false } : n));
    expect(decide(one, seen.state, START + 30_000).halted).to.equal(true);
    void node;
  });
});
