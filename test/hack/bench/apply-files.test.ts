/**
 * Smoke test of hack/bench/apply-files.ts: with `--quick` it applies a tiny OSC and prints its
 * figures. Only that it completes and reports is asserted, never a timing.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';

const ROOT = join(import.meta.dirname, '../../..');

describe('hack/bench/apply-files.ts --quick', function () {
  this.timeout(120_000);

  it('completes and prints apply and baseline figures per 1,000 files', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'hack/bench/apply-files.ts', '--quick'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' },
    });
    expect(run.status, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).to.match(/^# apply-files benchmark, /);
    expect(lines[1])
      .to.contain('apply ms per 1,000 files')
      .and.to.contain('baseline writeFile ms per 1,000 files');
    const [files, steps, ...figures] = lines[2]!.split(' | ');
    expect(files).to.equal('50');
    expect(Number(steps)).to.be.greaterThan(50);
    for (const figure of figures) expect(figure, lines[2]).to.match(/^[\d,.]+x?$/);
    expect(run.stderr).to.contain('50 files: apply');
  });
});
