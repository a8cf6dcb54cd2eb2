/**
 * A halt survives losing the status (controllers/rollout/halt-marks.ts): the seed marks the Nodes
 * of open failures; a rollout that starts without a status (deleted, or the gate turned off and
 * on) takes them back and halts before any canary; a resume or a new checksum removes the marks.
 */
import { expect } from 'chai';
import type { NodeView } from '../../../controllers/rollout/observe.js';
import {
  applyPermitted,
  decide,
  granted,
  pool,
  reasons,
  START,
  T0,
  T1,
  T2,
} from '../support/rollout-pool.js';

/** The canary went NotReady while it applied T1: halted, no agent report. */
function haltedByNotReady() {
  const nodes = pool(6);
  const d = decide(nodes, undefined, START);
  const canary = d.state!.members[0]!.node;
  const broken = applyPermitted(nodes, d).map((n) =>
    n.name === canary ? { ...n, applied: T0, report: undefined, ready: false } : n,
  );
  const h = decide(broken, d.state, START + 10_000);
  expect(h.state!.phase).to.equal('Halted');
  return { nodes: broken, h, canary };
}

/** The Nodes as the seed's patches leave them (marks written). */
const marked = (nodes: NodeView[], marks: ReadonlyMap<string, { checksum: string; reason: string } | null>) =>
  nodes.map((n) => {
    if (!marks.has(n.name)) return n;
    const m = marks.get(n.name);
    const { failureMark: _old, ...rest } = n;
    return m ? { ...rest, failureMark: m } : rest;
  });

describe('rollout: a halt survives losing the status', () => {
  it('an open failure is marked on its Node with checksum and reason', () => {
    const { h, canary } = haltedByNotReady();
    expect([...h.marks]).to.deep.equal([[canary, { checksum: T1, reason: 'NodeNotReady' }]]);
  });

  it('without a status the marks halt the rollout again before any canary gets the configuration', () => {
    const { nodes, h, canary } = haltedByNotReady();
    const onNodes = marked(nodes, h.marks);
    // the status is gone: deleted by an operator, or the gate turned off and on
    const d = decide(onNodes, undefined, START + 60_000);
    expect(d.halted).to.equal(true);
    expect(d.state).to.include({ phase: 'Halted', wave: 0 });
    expect(d.state!.failures.map((f) => [f.node, f.reason])).to.deep.equal([[canary, 'NodeNotReady']]);
    expect(reasons(d)).to.include('RolloutHalted');
    expect(
      granted(d).filter((n) => n !== canary),
      'no canary',
    ).to.deep.equal([]);
    expect(d.marks.size, 'the marks stay').to.equal(0);
  });

  it('a resume removes the marks (accepted failures do not halt after a lost status)', () => {
    const { nodes, h, canary } = haltedByNotReady();
    const onNodes = marked(nodes, h.marks);
    const r = decide(onNodes, h.state, START + 20_000, { action: 'resume' });
    expect(r.marks.get(canary)).to.equal(null);
    expect(decide(marked(onNodes, r.marks), undefined, START + 30_000).halted).to.equal(false);
  });

  it('a new checksum removes the marks of the old one', () => {
    const { nodes, h, canary } = haltedByNotReady();
    const d = decide(marked(nodes, h.marks), h.state, START + 20_000, { target: T2 });
    expect(d.marks.get(canary)).to.equal(null);
  });
});
