import { expect } from 'chai';
import {
  type AgentRun,
  latencyTable,
  mb,
  memoryTable,
  restartTable,
} from '../../../../hack/bench/upstream-node-agent/comparison-table.js';

const memory = (rssKb: number, anonKb: number) => ({
  samples: 2,
  median: { rssKb, anonKb, fileKb: 100, shmemKb: 30_000, peakKb: rssKb + 1000 },
  rssRangeKb: [rssKb - 100, rssKb + 100] as const,
});

const runs: AgentRun[] = [
  {
    agent: 'ours --disruption-policy none',
    idle: memory(56_000, 20_000),
    atRest: memory(57_000, 21_000),
    steps: [
      {
        step: 'maxPods',
        annotationMs: 1530,
        lastJobMs: 420,
        verdictMs: 11_800,
        restarted: ['kubelet.service'],
      },
      { step: 'a file', annotationMs: 310, lastJobMs: undefined, verdictMs: 560, restarted: [] },
    ],
  },
  {
    agent: 'upstream v1.91.4',
    idle: memory(50_000, 12_000),
    atRest: memory(52_000, 14_000),
    steps: [
      {
        step: 'maxPods',
        annotationMs: 530,
        lastJobMs: 400,
        verdictMs: undefined,
        restarted: ['kubelet.service'],
      },
      { step: 'a file', annotationMs: 200, lastJobMs: undefined, verdictMs: undefined, restarted: [] },
    ],
  },
];

describe('the upstream-agent benchmark: the comparison tables', () => {
  it('gives kB (KiB) in MB of 10^6 bytes', () => {
    expect(mb(50_000)).to.equal('51.2');
    expect(mb(12_000)).to.equal('12.3');
  });

  it('puts each agent’s memory next to the baseline’s, as ratios', () => {
    const lines = memoryTable(runs, 'upstream v1.91.4').split('\n');
    expect(lines).to.have.length(4);
    expect(lines[1]).to.match(/^\| --- \|/);
    expect(lines[2]).to.equal(
      '| ours --disruption-policy none | 57.3 (57.2–57.4) | 20.5 | 30.8 | 1.12×, 1.67× | 58.4 / 21.5 | 59.4 |',
    );
    expect(lines[3]).to.contain('| 1.00×, 1.00× |');
    expect(() => memoryTable(runs, 'upstream v1.150.0')).to.throw('no run of upstream v1.150.0');
  });

  it('gives per step the seconds to the annotation, the last job and the verdict, a dash for none', () => {
    expect(latencyTable(runs).split('\n').slice(2)).to.deep.equal([
      '| maxPods | 1.53 / 0.42 / 11.80 | 0.53 / 0.40 / – |',
      '| a file | 0.31 / – / 0.56 | 0.20 / – / – |',
    ]);
  });

  it('names the units each step restarted, "none" where it kept every InvocationID', () => {
    expect(restartTable(runs).split('\n').slice(2)).to.deep.equal([
      '| maxPods | kubelet.service | kubelet.service |',
      '| a file | none | none |',
    ]);
  });

  it('refuses runs whose steps differ: the comparison holds only for the same sequence', () => {
    const other = { ...runs[1]!, steps: runs[1]!.steps.slice(0, 1) };
    expect(() => restartTable([runs[0]!, other])).to.throw('upstream v1.91.4 ran other steps');
  });
});
