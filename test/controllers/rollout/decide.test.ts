/**
 * The rollout of one pool, decided: waves (canary in one zone, growth, cap, stagger), the gate
 * (success + Ready + fresh Lease for the settle time; failure, NotReady, stale Lease), halt,
 * resume, unguarded, supersede (failed nodes first), new machines, and a state that survives a
 * restart of the decider without skipping the gate.
 */
import { expect } from 'chai';
import type { NodeView } from '../../../controllers/rollout/observe.js';
import {
  decodeRolloutStatus,
  encodeRolloutStatus,
  type PoolRollout,
} from '../../../controllers/rollout/state.js';
import { staggered } from '../../../controllers/rollout/waves.js';
import {
  applyPermitted,
  decide,
  granted,
  node,
  pool,
  reasons,
  SETTINGS,
  START,
  T0,
  T1,
  WINDOW,
  withPermissions,
} from '../support/rollout-pool.js';

describe('rollout: waves', () => {
  it('a new checksum starts with the canary: one node, permitted at once; every other node held at what it runs', () => {
    const d = decide(pool(10), undefined, START);
    expect(reasons(d)).to.deep.equal(['RolloutStarted', 'RolloutWaveStarted']);
    expect(d.state).to.include({ phase: 'Progressing', wave: 1, lastWaveSize: 1, pending: 10 });
    expect(granted(d)).to.deep.equal(['n01']);
    expect(d.state!.members).to.deep.equal([
      { node: 'n01', grantAt: START, grantedAt: START, baseline: true },
    ]);
    // nodes already held at T0 need no patch
    expect([...d.permissions.keys()]).to.deep.equal(['n01']);
    expect(d.recheckAt).to.equal(START + SETTINGS.checkInterval);
  });

  it('a canary of several nodes stays in one zone; later waves interleave zones and stagger grants', () => {
    const nodes = pool(12);
    const d = decide(nodes, undefined, START, { settings: { canary: 3 } });
    const canary = d.state!.members.map((m) => m.node);
    expect(canary).to.have.length(3);
    expect(new Set(canary.map((n) => nodes.find((x) => x.name === n)!.zone)).size).to.equal(1);
    // staggered at the pace of a rollout by delays alone: window / pool size apart
    expect(d.state!.members.map((m) => m.grantAt - START)).to.deep.equal([0, 25_000, 50_000]);
    expect(granted(d)).to.deep.equal([canary[0]]);
    expect(d.recheckAt).to.equal(START + SETTINGS.checkInterval);
    const later = decide(withPermissions(nodes, d), d.state, START + 25_000, { settings: { canary: 3 } });
    expect(granted(later)).to.deep.equal([canary[1]]);
  });

  it('wave sizes grow by the factor up to the cap: 100 nodes in waves of 1, 2, 4, 8, 16, 25, 25, 19', () => {
    let nodes = pool(100);
    let state: PoolRollout | undefined;
    let now = START;
    const sizes: number[] = [];
    for (let i = 0; i < 400 && state?.phase !== 'Completed'; i++) {
      const d = decide(nodes, state, now, { settings: { settleTime: 0 } });
      if (d.state!.wave > (state?.wave ?? 0)) sizes.push(d.state!.members.length);
      nodes = applyPermitted(nodes, d);
      state = d.state;
      now += 1000;
      if (state!.phase === 'Completed') expect(reasons(d)).to.include('RolloutCompleted');
    }
    expect(sizes).to.deep.equal([1, 2, 4, 8, 16, 25, 25, 19]);
    expect(state).to.include({ phase: 'Completed', updated: 100, failed: 0, pending: 0 });
  });

  it('Ready nodes with fresh Leases go first; down nodes come last', () => {
    const nodes = [
      node('a1', 'a', { ready: false }),
      node('b1', 'b'),
      node('c1', 'c', { leaseFresh: false }),
    ];
    const d = decide(nodes, undefined, START);
    expect(d.state!.members.map((m) => m.node)).to.deep.equal(['b1']);
  });

  it('a machine that never applied anything takes the newest checksum at once and is no candidate', () => {
    const nodes = [...pool(3), node('fresh', 'a', { applied: undefined, permitted: undefined })];
    const d = decide(nodes, undefined, START);
    expect(d.permissions.get('fresh')).to.equal(T1);
    expect(d.state!.members.map((m) => m.node)).to.not.include('fresh');
  });

  it('no OSC secret yet: nothing is decided, nothing changes', () => {
    const d = decide(pool(3), undefined, START, { target: undefined });
    expect(d.state).to.equal(undefined);
    expect(d.permissions.size).to.equal(0);
  });

  it('a pool already running the checksum is adopted quietly as Completed', () => {
    const d = decide(pool(3, { applied: T1, permitted: undefined }), undefined, START);
    expect(reasons(d)).to.deep.equal([]);
    expect(d.state).to.include({ phase: 'Completed', updated: 3 });
    expect(d.permissions.size).to.equal(3);
  });
});

describe('rollout: the gate', () => {
  const started = () => {
    const nodes = pool(6);
    const d = decide(nodes, undefined, START);
    return { nodes: applyPermitted(nodes, d), state: d.state! };
  };

  it('passes the canary only after the settle time of Ready with a fresh Lease after its success', () => {
    const { nodes, state } = started();
    const seen = decide(nodes, state, START + 10_000);
    expect(seen.state!.members[0]).to.include({ succeededAt: START + 10_000, healthySince: START + 10_000 });
    expect(seen.recheckAt).to.equal(START + 15_000);
    const early = decide(nodes, seen.state, START + 69_999);
    expect(early.state!.wave).to.equal(1);
    const passed = decide(nodes, early.state, START + 70_000);
    expect(passed.state!.wave).to.equal(2);
    expect(passed.state!.members.map((m) => m.node)).to.have.length(2);
    expect(reasons(passed)).to.deep.equal(['RolloutWaveStarted']);
  });

  const failures: [string, (n: NodeView) => NodeView, string, RegExp][] = [
    [
      'a reported failure',
      (n) => ({
        ...n,
        applied: T0,
        report: {
          checksum: T1,
          result: 'Failed',
          reason: 'UnitCommandFailed',
          message: 'restart kubelet.service: Job failed',
        },
      }),
      'UnitCommandFailed',
      /node n01, checksum 111111111111: UnitCommandFailed: restart kubelet\.service: Job failed/,
    ],
    [
      'NotReady after its success',
      (n) => ({ ...n, ready: false }),
      'NodeNotReady',
      /the Node is not Ready within the settle time/,
    ],
    [
      'a stale Lease',
      (n) => ({ ...n, leaseFresh: false, leaseRenewed: START }),
      'LeaseExpired',
      /Lease is not fresh .*2026-03-01T10:00:00\.000Z/,
    ],
    [
      'Ready again, but it flipped since',
      (n) => ({ ...n, readySince: START + 20_000 }),
      'NodeNotReady',
      /was not Ready within the settle time/,
    ],
  ];
  for (const [name, breakIt, reason, message] of failures) {
    it(`halts on ${name}: a Warning event names node, checksum and why; nothing more is permitted`, () => {
      const { nodes, state } = started();
      const seen = decide(nodes, state, START + 10_000);
      const broken = nodes.map((n) => (n.name === 'n01' ? breakIt(n) : n));
      const d = decide(broken, seen.state, START + 30_000);
      expect(d.halted).to.equal(true);
      expect(d.newFailures.map((f) => [f.node, f.reason])).to.deep.equal([['n01', reason]]);
      const warning = d.events.find((e) => e.reason === 'RolloutHalted')!;
      expect(warning.type).to.equal('Warning');
      expect(warning.message).to.match(message);
      expect(d.state).to.include({ phase: 'Halted', haltedSince: START + 30_000, failed: 1 });
      expect(d.state!.reason).to.match(message);
      expect(granted(d)).to.deep.equal([]);
      expect(d.recheckAt).to.equal(undefined);
      // and it stays halted: later decisions start no wave
      const still = decide(broken, d.state, START + 600_000);
      expect(still.state).to.include({ phase: 'Halted', wave: 1 });
      expect(reasons(still)).to.deep.equal([]);
    });
  }

  it('cannot decide while the Leases are unknown: it holds, never passes', () => {
    const { nodes, state } = started();
    const unknown = nodes.map((n) => ({ ...n, leaseFresh: undefined }));
    const d = decide(unknown, state, START + 600_000);
    expect(d.state!.wave).to.equal(1);
    expect(d.state!.members[0]!.succeededAt).to.equal(undefined);
    expect(d.halted).to.equal(false);
  });

  it('a node that was down when permitted must come up within the settle time after its success', () => {
    const nodes = [node('a1', 'a', { ready: false })];
    const d = decide(nodes, undefined, START);
    expect(d.state!.members[0]).to.include({ baseline: false });
    const applied = applyPermitted(nodes, d);
    const waiting = decide(applied, d.state, START + 1000);
    expect(waiting.halted).to.equal(false);
    const late = decide(applied, waiting.state, START + 61_000);
    expect(late.newFailures.map((f) => f.message)).to.deep.equal([
      'the Node is not Ready a settle time after its success',
    ]);
  });

  it('tolerated failures do not halt; the wave completes without them', () => {
    const { nodes, state } = started();
    const broken = nodes.map((n) =>
      n.name === 'n01'
        ? { ...n, report: { checksum: T1, result: 'Failed' as const, reason: 'UnitNotActive', message: 'x' } }
        : n,
    );
    const d = decide(broken, state, START + 10_000, { settings: { failuresTolerated: 1 } });
    expect(d.halted).to.equal(false);
    expect(d.state).to.include({ phase: 'Progressing', wave: 2, failed: 1 });
  });

  it('a state written to the status ConfigMap and read back decides the same: a restart skips no gate', () => {
    const { nodes, state } = started();
    const seen = decide(nodes, state, START + 10_000).state!;
    const restored = decodeRolloutStatus(encodeRolloutStatus(new Map([['p', seen]]))).get('p')!;
    expect(restored).to.deep.equal(seen);
    expect(decide(nodes, restored, START + 69_000).state!.wave).to.equal(1);
    expect(decide(nodes, restored, START + 70_000).state!.wave).to.equal(2);
  });
});

describe('rollout: staggering', () => {
  it('within a wave each node waits its share of the window, shifted by its own delay modulo that share', () => {
    const nodes = pool(4).map((n, i) => ({ ...n, delay: [0, 80_000, 160_000, 240_000][i]! * 1e6 }));
    const members = staggered(nodes, START, WINDOW, 4);
    // 75 s spacing; delays 0, 80, 160, 240 s are 0, 5, 10, 15 s into their spacing
    expect(members.map((m) => m.grantAt - START)).to.deep.equal([0, 80_000, 160_000, 240_000]);
    expect(staggered(pool(2), START, WINDOW, 4).map((m) => m.grantAt - START)).to.deep.equal([0, 75_000]);
  });
});
