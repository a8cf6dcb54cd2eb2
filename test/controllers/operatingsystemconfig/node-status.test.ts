import { expect } from 'chai';
import {
  type ListedEvent,
  lastNodeStatusReport,
  type NodeStatus,
  nodeStatusReport,
  sameReport,
} from '../../../controllers/operatingsystemconfig/node-status.js';

const updated: NodeStatus = { total: 3, outdated: 0, problems: [], summary: 'updated' };
const outdated = (n: number): NodeStatus => {
  const problems = Array.from({ length: n }, (_, i) => ({
    kind: 'not-reported' as const,
    node: `n${i}`,
    message: `node n${i} not reported`,
  }));
  return { total: n, outdated: n, problems, summary: problems.map((p) => p.message).join('; ') };
};

const event = (reason: string, message: string, at: string, uid = 'u1'): ListedEvent => ({
  reason,
  message,
  involvedObject: { uid },
  lastTimestamp: at,
});

describe('node status reports on the Cluster', () => {
  it('says every node is updated, or names the first ten problems', () => {
    expect(nodeStatusReport(updated)).to.deep.equal({
      reason: 'NodesUpdated',
      message: "All 3 nodes run their worker pool's current operating system config",
    });
    const report = nodeStatusReport(outdated(12));
    expect(report.reason).to.equal('NodesOutdated');
    expect(report.message.split('\n')).to.have.length(10);
    expect(report.message.split('\n')[0]).to.equal('node n0 not reported');
  });

  const cases: { name: string; events: ListedEvent[]; uid?: string; want: string | undefined }[] = [
    { name: 'no events', events: [], want: undefined },
    {
      name: 'the newest node status event wins, whatever the list order',
      events: [
        event('NodesUpdated', 'all', '2026-12-01T10:05:00Z'),
        event('NodesOutdated', 'old', '2026-12-01T10:00:00Z'),
      ],
      want: 'NodesUpdated all',
    },
    {
      name: 'other reasons (a write that failed, a render warning) are no node status',
      events: [
        event('NodesOutdated', 'some', '2026-12-01T10:00:00Z'),
        event('WriteFailed', 'x', '2026-12-01T11:00:00Z'),
      ],
      want: 'NodesOutdated some',
    },
    {
      name: 'events of a deleted Cluster of the same name do not count',
      events: [event('NodesUpdated', 'all', '2026-12-01T10:00:00Z', 'old-uid')],
      uid: 'u1',
      want: undefined,
    },
    {
      name: 'a Cluster without a known uid takes any',
      events: [event('NodesUpdated', 'all', '2026-12-01T10:00:00Z', 'other')],
      want: 'NodesUpdated all',
    },
  ];
  for (const c of cases)
    it(`finds the last report: ${c.name}`, () => {
      const found = lastNodeStatusReport(c.events, 'uid' in c ? c.uid : undefined);
      expect(found && `${found.reason} ${found.message}`).to.equal(c.want);
    });

  it('an unchanged report is the same; another reason or message is not', () => {
    const report = nodeStatusReport(updated);
    expect(sameReport({ ...report }, report)).to.equal(true);
    expect(sameReport(undefined, report)).to.equal(false);
    expect(sameReport({ reason: 'NodesOutdated', message: report.message }, report)).to.equal(false);
    expect(sameReport({ reason: 'NodesUpdated', message: 'All 4 nodes' }, report)).to.equal(false);
  });
});
