/**
 * Breakage after the settle time: a node of a passed wave that goes NotReady or stale while the
 * rollout still runs counts against the configuration and halts later waves; once the rollout is
 * Completed it is no longer watched.
 */
import { expect } from 'chai';
import type { NodeView } from '../../../controllers/rollout/observe.js';
import type { PoolRollout } from '../../../controllers/rollout/state.js';
import { applyPermitted, decide, pool, reasons, START } from '../support/rollout-pool.js';

/** The pool driven until the canary passed and wave 2 started. */
function canaryPassed() {
  let nodes = pool(6);
  const d = decide(nodes, undefined, START);
  nodes = applyPermitted(nodes, d);
  const seen = decide(nodes, d.state, START + 10_000);
  const passed = decide(nodes, seen.state, START + 70_000);
  expect(passed.state!.wave).to.equal(2);
  return { nodes: applyPermitted(nodes, passed), state: passed.state!, canary: d.state!.members[0]!.node };
}

describe('rollout: breakage after the settle time', () => {
  const breaks: [string, (n: NodeView) => NodeView, string][] = [
    ['NotReady', (n) => ({ ...n, ready: false, readySince: START + 80_000 }), 'NodeNotReady'],
    ['a stale Lease', (n) => ({ ...n, leaseFresh: false, leaseRenewed: START + 60_000 }), 'LeaseExpired'],
  ];
  for (const [what, breakIt, reason] of breaks)
    it(`a canary that passed and then goes ${what} while wave 2 runs halts the rollout`, () => {
      const { nodes, state, canary } = canaryPassed();
      expect(state.passed).to.deep.equal([canary]);
      const broken = nodes.map((n) => (n.name === canary ? breakIt(n) : n));
      const d = decide(broken, state, START + 90_000);
      expect(d.halted).to.equal(true);
      expect(d.newFailures.map((f) => [f.node, f.reason])).to.deep.equal([[canary, reason]]);
      expect(d.state!.reason).to.match(/after it passed the gate, while the rollout still runs/);
      expect(reasons(d)).to.include('RolloutHalted');
    });

  it('a Lease the seed cannot see (unknown) is no breakage', () => {
    const { nodes, state, canary } = canaryPassed();
    const blind = nodes.map((n) => (n.name === canary ? { ...n, leaseFresh: undefined } : n));
    expect(decide(blind, state, START + 90_000).halted).to.equal(false);
  });

  it('after the rollout completed, a node going NotReady is not the rollout’s business', () => {
    let { nodes, state } = canaryPassed();
    let s: PoolRollout = state;
    let now = START + 70_000;
    for (let i = 0; i < 50 && s.phase !== 'Completed'; i++) {
      now += 61_000;
      const d = decide(nodes, s, now);
      nodes = applyPermitted(nodes, d);
      s = d.state!;
      const again = decide(nodes, s, now + 1000);
      nodes = applyPermitted(nodes, again);
      s = again.state!;
    }
    expect(s.phase).to.equal('Completed');
    expect(s.passed).to.equal(undefined);
    const down = nodes.map((n, i) => (i === 0 ? { ...n, ready: false } : n));
    const d = decide(down, s, now + 10_000);
    expect(d.halted).to.equal(false);
    expect(d.newFailures).to.deep.equal([]);
    void state;
  });
});
