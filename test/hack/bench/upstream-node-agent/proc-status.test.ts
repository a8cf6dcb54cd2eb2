import { expect } from 'chai';
import { parseProcStatus, summarizeMemory } from '../../../../hack/bench/upstream-node-agent/proc-status.js';

/** /proc/<pid>/status of the project's agent in a real node (Linux 6.18), trimmed. */
const STATUS = `Name:\tgardener-node-a
State:\tS (sleeping)
Pid:\t1432
VmPeak:\t 1273296 kB
VmSize:\t 1207760 kB
VmHWM:\t   62108 kB
VmRSS:\t   56428 kB
RssAnon:\t   20216 kB
RssFile:\t    3600 kB
RssShmem:\t   32612 kB
VmData:\t   83480 kB
Threads:\t11
`;

describe('the upstream-agent benchmark: /proc/<pid>/status', () => {
  it('reads VmRSS, RssAnon, RssFile, RssShmem and VmHWM in kB', () => {
    expect(parseProcStatus(STATUS)).to.deep.equal({
      rssKb: 56428,
      anonKb: 20216,
      fileKb: 3600,
      shmemKb: 32612,
      peakKb: 62108,
    });
  });

  it('refuses a status without memory lines (a zombie or kernel thread), naming the field', () => {
    const zombie = 'Name:\tgardener-node-a\nState:\tZ (zombie)\nPid:\t1432\nThreads:\t1\n';
    expect(() => parseProcStatus(zombie)).to.throw('no VmRSS line');
    expect(() => parseProcStatus(STATUS.replace(/^RssShmem.*$/m, ''))).to.throw('no RssShmem line');
  });

  it('summarizes samples field by field with medians and the VmRSS range', () => {
    const sample = (rssKb: number, anonKb: number) => ({ rssKb, anonKb, fileKb: 1, shmemKb: 2, peakKb: 70 });
    const s = summarizeMemory([sample(50, 10), sample(58, 30), sample(52, 12)]);
    expect(s).to.deep.equal({
      samples: 3,
      median: { rssKb: 52, anonKb: 12, fileKb: 1, shmemKb: 2, peakKb: 70 },
      rssRangeKb: [50, 58],
    });
    expect(summarizeMemory([sample(50, 10), sample(60, 20)]).median).to.include({ rssKb: 55, anonKb: 15 });
    expect(() => summarizeMemory([])).to.throw('no memory samples');
  });
});
