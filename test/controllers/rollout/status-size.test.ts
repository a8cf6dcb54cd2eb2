/**
 * The status ConfigMap stays writable (at most 1 MiB) with 1,000+ failed nodes per pool whose
 * agents wrote the longest messages: messages are truncated, the failure list is capped with a
 * count of what was left out, and the status reads back and prints.
 */
import { expect } from 'chai';
import { MAX_DETAILED_FAILURES, MAX_FAILURES, MAX_MESSAGE } from '../../../controllers/rollout/bound.js';
import {
  decodeRolloutStatus,
  encodeRolloutStatus,
  type PoolRollout,
} from '../../../controllers/rollout/state.js';
import { formatRolloutStatus } from '../../../controllers/rollout/status-table.js';
import { decide, node, START, T0, T1 } from '../support/rollout-pool.js';

const CONFIGMAP_LIMIT = 1024 * 1024;
const LONG =
  `kubelet.service is inactive (dead), 10s after the apply restarted it: ${'x'.repeat(1024)}`.slice(0, 1024);

/** n nodes with long names that were permitted T1 and report it Failed with a 1,024-character message. */
function failedPool(pool: string, n: number) {
  return Array.from({ length: n }, (_, i) =>
    node(`shoot--garden-project--a-long-shoot-name-${pool}-z1-5d8f7-${String(i).padStart(5, '0')}`, 'a', {
      applied: T0,
      permitted: T1,
      report: { checksum: T1, result: 'Failed', reason: 'UnitNotActive', message: LONG },
    }),
  );
}

const clean = (nodes: ReturnType<typeof failedPool>) =>
  nodes.map(({ report: _r, ...n }) => ({ ...n, permitted: T0 }));

describe('rollout: the status stays within a ConfigMap', () => {
  it('1,200 failed nodes with 1 KiB messages in each of 3 pools: under 1 MiB, all counted, readable', () => {
    const status = new Map<string, PoolRollout>();
    for (const pool of ['cpu', 'gpu', 'mem']) {
      const nodes = failedPool(pool, 1200);
      // the rollout started on healthy nodes; then (unguarded, say) every node reported its failure
      let state = decide(clean(nodes), undefined, START).state!;
      // decided again and again, nothing grows
      for (let i = 1; i <= 3; i++) state = decide(nodes, state, START + i * 5000).state!;
      expect(state).to.include({ phase: 'Halted', failed: 1200, pending: 0 });
      expect(state.failures).to.have.length(MAX_FAILURES);
      expect(state.failures[0]!.message).to.have.length(MAX_MESSAGE);
      expect(state.failures[MAX_DETAILED_FAILURES]!.message).to.equal('');
      status.set(pool, state);
    }
    const data = encodeRolloutStatus(status);
    const bytes = Object.entries(data).reduce((sum, [k, v]) => sum + k.length + Buffer.byteLength(v), 0);
    expect(bytes).to.be.below(CONFIGMAP_LIMIT * 0.75);
    const back = decodeRolloutStatus(data);
    expect(back.get('gpu')).to.deep.equal(status.get('gpu'));
    const table = formatRolloutStatus(back, START);
    expect(table).to.contain('cpu: 200 more failed node(s) counted but not named');
  });

  it('failures judged by the gate beyond the named ones are counted, and a resume accepts them too', () => {
    const nodes = failedPool('cpu', 1000);
    const full = decide(nodes, decide(clean(nodes), undefined, START).state, START + 500).state!;
    expect(full.failures).to.have.length(MAX_FAILURES);
    // one more node of a wave that goes NotReady: counted, not named
    const late = node('late', 'a', { applied: T0, permitted: T1, ready: false });
    const state: PoolRollout = {
      ...full,
      phase: 'Progressing',
      members: [{ node: 'late', grantAt: START, grantedAt: START, baseline: true }],
    };
    const d = decide([...nodes, late], state, START + 1000);
    expect(d.newFailures.map((f) => f.node)).to.deep.equal(['late']);
    expect(d.state!.omittedFailures).to.deep.equal({ count: 1, accepted: 0 });
    const resumed = decide([...nodes, late], d.state, START + 2000, { action: 'resume' });
    expect(resumed.events[0]!.message).to.contain('1001 failure(s) accepted');
    expect(resumed.state!.omittedFailures).to.deep.equal({ count: 1, accepted: 1 });
  });
});
