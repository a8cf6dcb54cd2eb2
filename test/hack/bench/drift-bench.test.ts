import { expect } from 'chai';
import { describeRun, QUICK_NOTICE, runQuickBench } from '../../support/bench-run.js';

describe('hack/bench/drift.ts --quick', () => {
  it('prints the check against its baseline, the cost at rest and edit-to-report times', async function () {
    this.timeout(120_000);
    const run = await runQuickBench('drift.ts', [], 110_000);
    expect(run.code, describeRun(run)).to.equal(0);
    expect(run.stdout).to.include(QUICK_NOTICE);
    expect(run.stdout).to.match(/^pool \S+: \d+ files, \d+ units, [1-9]\d* watched directories$/m);
    expect(run.stdout).to.match(/^ratio check \/ up-to-date apply: \d+\.\d+$/m);
    expect(run.stdout).to.match(/^edit -> reported: median \d+\.\d+ ms, max \d+\.\d+ ms over 2 of 2 edits$/m);
  });
});
