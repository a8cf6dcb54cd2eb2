/**
 * A node speaks for the target only once it is permitted it (controllers/rollout/trust.ts): a
 * forged `Failed` report out of turn does not halt the pool, a forged `checksum/cloud-config-data`
 * does not get the node its permission; both are named as ignored. The same report from a node
 * that was permitted the target halts as before.
 */
import { expect } from 'chai';
import { decide, granted, pool, START, T0, T1 } from '../support/rollout-pool.js';

const forged = {
  checksum: T1,
  result: 'Failed' as const,
  reason: 'UnitNotActive',
  message: 'forged',
  time: START,
};

describe('rollout: claims out of turn', () => {
  it('a forged Failed report from a node not permitted the target is ignored: no halt, the canary goes on', () => {
    const d0 = decide(pool(6), undefined, START);
    const canary = d0.state!.members[0]!.node;
    const liar = 'n06';
    expect(canary).to.not.equal(liar);
    const nodes = pool(6).map((n) =>
      n.name === canary ? { ...n, permitted: T1 } : n.name === liar ? { ...n, report: forged } : n,
    );
    const d = decide(nodes, d0.state, START + 1000);
    expect(d.halted).to.equal(false);
    expect(d.state).to.include({ phase: 'Progressing', wave: 1, failed: 0 });
    expect(d.ignored).to.deep.equal([
      { node: liar, claim: 'Failed', checksum: T1, permitted: T0, time: START },
    ]);
    // its permission stays what it runs: the forged report does not get it the target either
    expect(d.permissions.has(liar)).to.equal(false);
  });

  it('claiming to run the target without the permission gets the node nothing', () => {
    const d0 = decide(pool(6), undefined, START);
    const nodes = pool(6).map((n) => (n.name === 'n06' ? { ...n, applied: T1 } : n));
    const d = decide(nodes, d0.state, START + 1000);
    expect(d.ignored.map((c) => [c.node, c.claim])).to.deep.equal([['n06', 'applied']]);
    expect(granted(d)).to.not.include('n06');
  });

  it('the same report from the node that was permitted the target halts', () => {
    const d0 = decide(pool(6), undefined, START);
    const canary = d0.state!.members[0]!.node;
    const nodes = pool(6).map((n) => (n.name === canary ? { ...n, permitted: T1, report: forged } : n));
    const d = decide(nodes, d0.state, START + 1000);
    expect(d.halted).to.equal(true);
    expect(d.ignored).to.deep.equal([]);
  });

  it('a node without any permission yet (a new machine) is not out of turn: its report counts once permitted', () => {
    const fresh = { ...pool(1)[0]!, name: 'new', applied: T1, permitted: undefined, report: forged };
    const d = decide([...pool(3), fresh], undefined, START);
    expect(d.ignored).to.deep.equal([]);
    expect(d.permissions.get('new')).to.equal(T1);
    expect(d.newFailures.map((f) => f.node)).to.deep.equal(['new']);
  });
});
