/** Migration progress and phases: pure decisions. */
import { expect } from 'chai';
import { phaseToRecord } from '../../../controllers/migration/decide.js';
import { migrationProgress } from '../../../controllers/migration/progress.js';
import { legacyNodesRemain } from '../../../seed/migration-state/state.js';
import type { NodeInfo } from '../../../seed/shoot-nodes/shoot-node-state.js';

const secret = { name: 'gardener-node-agent-pool-a-46fed', annotations: { 'checksum/data-script': 'abc' } };
const node = (name: string, checksum?: string): NodeInfo => ({
  name,
  labels: {
    'worker.gardener.cloud/pool': 'pool-a',
    'worker.gardener.cloud/kubernetes-version': '1.30.5',
    'worker.gardener.cloud/cri-name': 'containerd',
  },
  annotations: checksum ? { 'checksum/cloud-config-data': checksum } : undefined,
});
const now = Date.parse('2026-01-01T00:00:00Z');
const lease = (name: string, ageSeconds: number) =>
  [
    `gardener-node-agent-${name}`,
    { name: `gardener-node-agent-${name}`, renewTime: now - ageSeconds * 1000, leaseDurationSeconds: 40 },
  ] as const;

describe('migration progress', () => {
  it('a node counts once its agent renewed its Lease and it reports the pool checksum; others block by name', () => {
    const secrets = new Map([['pool-a', secret]]);
    const nodes = new Map([['pool-a', [node('n1', 'abc'), node('n2', 'abc'), node('n3')]]]);
    const leases = new Map([lease('n1', 5), lease('n2', 60), lease('n3', 1)]);
    const progress = migrationProgress(['pool-a'], secrets, nodes, leases, now);
    expect(progress.done).to.equal(false);
    expect(progress.pools[0]?.migrated).to.equal(1);
    expect(progress.pools[0]?.total).to.equal(3);
    expect(progress.pools[0]?.blocking.map((b) => b.node)).to.deep.equal(['n2', 'n3']);
  });

  it('is done when every node reported; nodes about to be deleted do not block', () => {
    const doomed = {
      ...node('n2'),
      taints: [{ key: 'deployment.machine.sapcloud.io/prefer-no-schedule', effect: 'PreferNoSchedule' }],
    };
    const progress = migrationProgress(
      ['pool-a'],
      new Map([['pool-a', secret]]),
      new Map([['pool-a', [node('n1', 'abc'), doomed]]]),
      new Map([lease('n1', 1)]),
      now,
    );
    expect(progress.done).to.equal(true);
  });

  it('a pool whose secret is not in the shoot yet blocks', () => {
    const progress = migrationProgress(['pool-a'], new Map(), new Map(), new Map(), now);
    expect(progress.done).to.equal(false);
  });

  it('phases move forward only; legacy resources are rendered only while nodes may need them', () => {
    expect(phaseToRecord(false, undefined, false)).to.equal('Legacy');
    expect(phaseToRecord(true, undefined, false)).to.equal('Completed');
    expect(phaseToRecord(true, undefined, true)).to.equal('Migrating');
    expect(phaseToRecord(true, { phase: 'Legacy', since: '' }, false)).to.equal('Migrating');
    expect(phaseToRecord(true, { phase: 'CleaningUp', since: '' }, true)).to.equal(undefined);
    expect(phaseToRecord(true, { phase: 'Completed', since: '' }, true)).to.equal(undefined);
    expect(legacyNodesRemain(true, { phase: 'Migrating', since: '' })).to.equal(true);
    expect(legacyNodesRemain(true, { phase: 'CleaningUp', since: '' })).to.equal(false);
    expect(legacyNodesRemain(false, { phase: 'Completed', since: '' })).to.equal(true);
  });
});
