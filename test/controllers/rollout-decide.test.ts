/**
 * The rollout of one pool, decided: waves (canary in one zone, growth, cap, stagger), the gate
 * (success + Ready + fresh Lease for the settle time; failure, NotReady, stale Lease), halt,
 * resume, unguarded, supersede (failed nodes first), new machines, and a state that survives a
 * restart of the decider without skipping the gate.
 */
import { expect } from 'chai';
import { decidePool, type PoolDecision } from '../../controllers/rollout/decide.js';
import type { NodeView } from '../../controllers/rollout/observe.js';
import {
  decodeRolloutStatus,
  encodeRolloutStatus,
  type PoolRollout,
} from '../../controllers/rollout/state.js';
import { type RolloutSettings, RolloutSettingsSchema } from '../../seed/manager/config.js';

const T0 = '0'.repeat(64);
const T1 = '1'.repeat(64);
const T2 = '2'.repeat(64);
const SETTINGS: RolloutSettings = RolloutSettingsSchema.parse({});
const START = Date.parse('2026-03-01T10:00:00Z');
const WINDOW = 300_000;

function node(name: string, zone: string, o: Partial<NodeView> = {}): NodeView {
  return {
    name,
    zone,
    applied: T0,
    permitted: T0,
    ready: true,
    readySince: START - 3600_000,
    leaseFresh: true,
    ...o,
  };
}

/** n nodes spread round robin over zones a, b, c, named n01.. */
function pool(n: number, o: Partial<NodeView> = {}): NodeView[] {
  return Array.from({ length: n }, (_, i) => node(`n${String(i + 1).padStart(2, '0')}`, 'abc'[i % 3]!, o));
}

function decide(
  nodes: readonly NodeView[],
  previous: PoolRollout | undefined,
  now: number,
  o: { target?: string; settings?: Partial<RolloutSettings>; action?: 'resume' | 'unguarded' } = {},
): PoolDecision {
  return decidePool({
    settings: { ...SETTINGS, ...o.settings },
    now,
    windowMs: WINDOW,
    observation: { pool: 'p', target: 'target' in o ? o.target : T1, nodes },
    previous,
    action: o.action,
  });
}

const reasons = (d: PoolDecision) => d.events.map((e) => e.reason);
const granted = (d: PoolDecision) => [...d.permissions].filter(([, c]) => c === T1).map(([n]) => n);

/** The nodes as the seed's patches leave them (nothing applied yet). */
function withPermissions(nodes: NodeView[], d: PoolDecision): NodeView[] {
  return nodes.map((n) => ({ ...n, permitted: d.permissions.get(n.name) ?? n.permitted }));
}

/** The nodes as the agents leave them once they applied what they were permitted. */
function applyPermitted(nodes: NodeView[], d: PoolDecision, target = T1): NodeView[] {
  return nodes.map((n) => {
    const permitted = d.permissions.get(n.name) ?? n.permitted;
    if (permitted !== target || n.applied === target) return { ...n, permitted };
    return {
      ...n,
      permitted,
      applied: target,
      report: { checksum: target, result: 'Succeeded', reason: 'Applied', message: 'applied' },
    };
  });
}

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
    const verifying = nodes.map((n) =>
      n.name === 'n01'
        ? n
        : {
            ...n,
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
