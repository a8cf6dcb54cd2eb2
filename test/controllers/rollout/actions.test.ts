/** The rollout decided under the operator's actions and new configurations: resume, unguarded, supersede, revert. */
import { expect } from 'chai';
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
  withPermissions,
} from '../support/rollout-pool.js';

describe('rollout: operator actions and new configurations', () => {
  const halted = () => {
    const nodes = pool(6);
    const d = decide(nodes, undefined, START);
    const applied = applyPermitted(nodes, d).map((n) =>
      n.name === 'n01'
        ? {
            ...n,
            report: {
              checksum: T1,
              result: 'Failed' as const,
              reason: 'UnitNotActive',
              message: 'kubelet.service is inactive (dead)',
            },
          }
        : n,
    );
    return { nodes: applied, state: decide(applied, d.state, START + 5000).state! };
  };

  it('resume: the failures are accepted, the rollout goes on as it is', () => {
    const { nodes, state } = halted();
    expect(state.phase).to.equal('Halted');
    const d = decide(nodes, state, START + 10_000, { action: 'resume' });
    expect(reasons(d)).to.deep.equal(['RolloutResumed', 'RolloutWaveStarted']);
    expect(d.state).to.include({ phase: 'Progressing', wave: 2, haltedSince: undefined });
    expect(d.state!.failures[0]).to.include({ node: 'n01', accepted: true });
    // a new failure halts again
    const again = applyPermitted(nodes, d).map((n) =>
      d.state!.members.some((m) => m.node === n.name && m.grantedAt !== undefined)
        ? {
            ...n,
            report: {
              checksum: T1,
              result: 'Failed' as const,
              reason: 'HealthCheckFailed',
              message: 'kubelet',
            },
          }
        : n,
    );
    expect(decide(again, d.state, START + 11_000).halted).to.equal(true);
  });

  it('unguarded: every remaining node within the delay window, no gate; then completed', () => {
    const { nodes, state } = halted();
    const d = decide(nodes, state, START + 10_000, { action: 'unguarded' });
    expect(reasons(d)).to.deep.equal(['RolloutUnguarded']);
    expect(d.state!.phase).to.equal('Unguarded');
    expect(d.state!.members.map((m) => m.grantAt - (START + 10_000))).to.deep.equal([
      0, 50_000, 100_000, 150_000, 200_000,
    ]);
    let now = START + 10_000;
    let current = applyPermitted(nodes, d);
    let s = d.state;
    while (s!.phase !== 'Completed' && now < START + 400_000) {
      now += 50_000;
      const next = decide(current, s, now);
      current = applyPermitted(current, next);
      s = next.state;
    }
    expect(s).to.include({ phase: 'Completed', updated: 5, failed: 1 });
  });

  it('unguarded ends only once every node said how its apply went', () => {
    const { nodes, state } = halted();
    const d = decide(nodes, state, START + 10_000, { action: 'unguarded' });
    // by then every node was permitted the target (staggered over the window) and applied it
    const verifying = nodes.map((n) =>
      n.name === 'n01'
        ? n
        : {
            ...n,
            permitted: T1,
            applied: T1,
            report: { checksum: T1, result: 'Verifying' as const, reason: 'Applied', message: '' },
          },
    );
    expect(decide(verifying, d.state, START + 400_000).state!.phase).to.equal('Unguarded');
    const failed = verifying.map((n) =>
      n.name === 'n01'
        ? n
        : { ...n, report: { checksum: T1, result: 'Failed' as const, reason: 'UnitNotActive', message: '' } },
    );
    expect(decide(failed, d.state, START + 400_000).state).to.include({
      phase: 'Completed',
      updated: 0,
      failed: 6,
    });
  });

  it('a new checksum supersedes a halted rollout and reaches its failed nodes first', () => {
    const { nodes, state } = halted();
    const d = decide(nodes, state, START + 10_000, { target: T2 });
    expect(reasons(d)).to.deep.equal(['RolloutSuperseded', 'RolloutWaveStarted']);
    expect(d.events[0]!.message).to.match(
      /supersedes the halted rollout of 111111111111; its 1 failed node\(s\) first: n01/,
    );
    expect(d.state).to.include({
      target: T2,
      phase: 'Progressing',
      wave: 1,
      supersedes: T1,
      lastWaveSize: 0,
    });
    expect(d.state!.members.map((m) => m.node)).to.deep.equal(['n01']);
    expect(d.permissions.get('n01')).to.equal(T2);
    // then the canary
    const fixed = applyPermitted(nodes, d, T2);
    const next = decide(fixed, decide(fixed, d.state, START + 11_000, { target: T2 }).state, START + 80_000, {
      target: T2,
    });
    expect(next.state!.wave).to.equal(2);
    expect(next.state!.members).to.have.length(1);
  });

  it('going back to the previous checksum rolls back only what moved, failed nodes first', () => {
    const { nodes, state } = halted();
    const d = decide(nodes, state, START + 10_000, { target: T0 });
    expect(d.state!.members.map((m) => m.node)).to.deep.equal(['n01']);
    expect(d.state).to.include({ updated: 5, pending: 1 });
  });

  it('a halt takes back permissions not acted on yet', () => {
    let nodes = pool(12);
    let d = decide(nodes, undefined, START, { settings: { canary: 3 } });
    const canary = d.state!.members.map((m) => m.node);
    nodes = withPermissions(nodes, d);
    d = decide(nodes, d.state, START + 25_000, { settings: { canary: 3 } });
    expect(granted(d)).to.deep.equal([canary[1]]);
    const failing = nodes.map((n) =>
      n.name === canary[0]
        ? { ...n, report: { checksum: T1, result: 'Failed' as const, reason: 'UnitNotActive', message: 'x' } }
        : n.name === canary[1]
          ? { ...n, permitted: T1 }
          : n,
    );
    const h = decide(failing, d.state, START + 26_000, { settings: { canary: 3 } });
    expect(h.halted).to.equal(true);
    expect(h.permissions.get(canary[1]!)).to.equal(T0);
  });
});
