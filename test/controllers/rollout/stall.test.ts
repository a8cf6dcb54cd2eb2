/**
 * A wave that does not progress within `waveTimeout` after a node's permission is reported
 * (Warning RolloutWaveStalled naming the nodes, `stalled` in the status) and, by `stalledNodes`,
 * skips nodes that are down and halts on healthy nodes whose agent never finishes (the default),
 * skips all, or halts on all. A node the seed cannot see is waited for whatever the policy. The
 * timeout counts from the gate's own start at the earliest.
 */
import { expect } from 'chai';
import { decidePool } from '../../../controllers/rollout/decide.js';
import type { NodeView } from '../../../controllers/rollout/observe.js';
import { formatRolloutStatus } from '../../../controllers/rollout/status-table.js';
import type { RolloutSettings } from '../../../seed/manager/config.js';
import { decide, pool, reasons, SETTINGS, START, T1, WINDOW } from '../support/rollout-pool.js';

const TIMEOUT = SETTINGS.waveTimeout;

/** The canary permitted at START, then what `change` makes of it, decided at `at`. */
function canaryAt(change: (n: NodeView) => NodeView, at: number, settings: Partial<RolloutSettings> = {}) {
  const d = decide(pool(6), undefined, START, { settings });
  const canary = d.state!.members[0]!.node;
  const nodes = pool(6).map((n) => (n.name === canary ? change({ ...n, permitted: T1 }) : n));
  return { canary, d: decide(nodes, d.state, at, { settings }), nodes, state: d.state! };
}

const silent = (n: NodeView) => n;
const unseen = (n: NodeView) => ({ ...n, leaseFresh: undefined });

describe('rollout: a wave that stalls', () => {
  it('defaults: 15 min, skip what is down, halt on what is healthy but silent', () => {
    expect(SETTINGS).to.include({ waveTimeout: 15 * 60_000, stalledNodes: 'skipUnhealthy' });
  });

  it('waits quietly within the bound', () => {
    const { d } = canaryAt(silent, START + TIMEOUT - 1);
    expect(reasons(d)).to.deep.equal([]);
    expect(d.state!.members).to.have.length(1);
  });

  it('a Ready node with a fresh Lease whose agent never applies halts the pool, naming it (default)', () => {
    const { d, canary } = canaryAt(silent, START + TIMEOUT);
    expect(d.halted).to.equal(true);
    expect(d.newFailures.map((f) => [f.node, f.reason])).to.deep.equal([[canary, 'WaveTimeout']]);
    const warning = d.events.find((e) => e.reason === 'RolloutWaveStalled')!;
    expect(warning.type).to.equal('Warning');
    expect(warning.message).to.match(
      new RegExp(
        `wave 1 of 111111111111 waited longer than 15m0s for 1 node\\(s\\).*${canary} \\(the Node is Ready with a fresh Lease, but its agent has not reported success\\): failed`,
      ),
    );
    expect(d.stalls).to.deep.equal([{ node: canary, kind: 'silent', action: 'fail' }]);
  });

  it('a node that was down when permitted and stays down is skipped (default): the rollout goes on without it', () => {
    // every node is down: the canary was down when it got its permission (no health to lose)
    const nodes = pool(6, { ready: false, readySince: START - 1000 });
    const d0 = decide(nodes, undefined, START);
    const canary = d0.state!.members[0]!.node;
    expect(d0.state!.members[0]!.baseline).to.equal(false);
    const d = decide(
      nodes.map((n) => (n.name === canary ? { ...n, permitted: T1 } : n)),
      d0.state,
      START + TIMEOUT,
    );
    expect(d.halted).to.equal(false);
    expect(d.state!.skipped).to.deep.equal([canary]);
    expect(reasons(d)).to.deep.equal(['RolloutWaveStalled', 'RolloutWaveStarted']);
    expect(d.state!.wave).to.equal(2);
    expect(d.state!.members.map((m) => m.node)).to.not.include(canary);
    // held at what it runs: the permission is taken back
    expect(d.permissions.get(canary)).to.equal(pool(1)[0]!.applied);
  });

  it('stalledNodes halt: a node that is down halts too', () => {
    const nodes = pool(6, { ready: false, readySince: START - 1000 });
    const settings = { stalledNodes: 'halt' as const };
    const d0 = decide(nodes, undefined, START, { settings });
    const canary = d0.state!.members[0]!.node;
    const at = (t: number) =>
      decide(
        nodes.map((n) => (n.name === canary ? { ...n, permitted: T1 } : n)),
        d0.state,
        t,
        { settings },
      );
    expect(at(START + TIMEOUT - 1).halted).to.equal(false);
    const d = at(START + TIMEOUT);
    expect(d.halted).to.equal(true);
    expect(d.newFailures.map((f) => f.reason)).to.deep.equal(['WaveTimeout']);
  });

  it('stalledNodes skip: a silent node is skipped too', () => {
    const { d, canary } = canaryAt(silent, START + TIMEOUT, { stalledNodes: 'skip' });
    expect(d.halted).to.equal(false);
    expect(d.state!.skipped).to.deep.equal([canary]);
  });

  it('a node the seed cannot see is waited for and reported once, with the status naming it', () => {
    const { d, canary, nodes } = canaryAt(unseen, START + TIMEOUT, { stalledNodes: 'skip' });
    expect(d.halted).to.equal(false);
    expect(d.state!.members.map((m) => m.node)).to.deep.equal([canary]);
    expect(d.state!.stalled).to.deep.equal([`${canary} (the seed cannot see the node's Lease)`]);
    expect(reasons(d)).to.deep.equal(['RolloutWaveStalled']);
    const again = decide(
      nodes.map((n) => (n.name === canary ? unseen(n) : n)),
      d.state,
      START + TIMEOUT + 5000,
      { settings: { stalledNodes: 'skip' } },
    );
    expect(reasons(again), 'announced once').to.deep.equal([]);
    expect(again.state!.stalled).to.have.length(1);
    // what `gardener-osc rollout status` prints
    expect(formatRolloutStatus(new Map([['p', again.state!]]), START)).to.contain(
      `p: the wave waits beyond its timeout for ${canary} (the seed cannot see the node's Lease)`,
    );
  });

  it("the controller-manager's own outage does not count: the bound starts at the gate's start at the earliest", () => {
    const d0 = decide(pool(6), undefined, START);
    const canary = d0.state!.members[0]!.node;
    const nodes = pool(6).map((n) => (n.name === canary ? { ...n, permitted: T1 } : n));
    const restarted = START + 3600_000;
    const d = decidePool({
      settings: SETTINGS,
      now: restarted + 60_000,
      windowMs: WINDOW,
      observation: { pool: 'p', target: T1, nodes },
      previous: d0.state,
      gateSince: restarted,
    });
    expect(d.halted).to.equal(false);
    expect(reasons(d)).to.deep.equal([]);
  });
});
