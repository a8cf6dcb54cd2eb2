/**
 * The benchmarks that need no API server, each run end to end at its `--quick` size: a benchmark
 * that no longer runs fails here instead of when someone next wants its figures. Only that it
 * completes and prints its figures is asserted, never a timing (docs/benchmarks.md).
 */
import { expect } from 'chai';
import { type BenchRun, describeRun, QUICK_NOTICE, startQuickBenches } from '../../support/bench-run.js';

const number = String.raw`\d+(?:\.\d+)?`;

describe('benchmarks without an API server, at their --quick size', function () {
  // two at a time: a test's time includes its wait for a free slot
  this.timeout(900_000);
  type Bench = 'render' | 'plan' | 'least-disruption' | 'node-delay' | 'apply-files' | 'cli-start';
  let run: (key: Bench) => Promise<BenchRun>;
  before(() => {
    run = startQuickBenches(
      {
        render: { script: 'render.ts', timeoutMs: 240_000 },
        plan: { script: 'plan.ts', timeoutMs: 240_000 },
        'least-disruption': { script: 'least-disruption.ts', timeoutMs: 240_000 },
        'node-delay': { script: 'node-delay.ts', timeoutMs: 240_000 },
        'apply-files': { script: 'apply-files.ts', timeoutMs: 240_000 },
        'cli-start': { script: 'cli-start.ts', timeoutMs: 280_000 },
      },
      2,
    );
  });

  it('render prints ms per pool in both contracts against its JSON calibration, their ratio, and the CLI wall time', async () => {
    const result = await run('render');
    expect(result.code, describeRun(result)).to.equal(0);
    expect(result.stdout).to.include(QUICK_NOTICE);
    for (const contract of ['v1\\.91\\.4', 'v1\\.150\\.0'])
      expect(result.stdout).to.match(
        new RegExp(`^1 \\| ${contract} \\| ${number} \\| ${number} \\| \\d+x \\| \\d+ \\| \\d+$`, 'm'),
      );
    expect(result.stdout).to.match(
      new RegExp(`^1 \\| v1\\.150\\.0 / v1\\.91\\.4 render time per pool: ${number}$`, 'm'),
    );
    expect(result.stdout).to.match(/CLI render of examples\/cluster.yaml \(v1\.91\.4\): \d+ ms wall/);
    expect(result.stdout).to.match(
      /CLI render of examples\/cluster-v1\.150\.yaml \(v1\.150\.0\): \d+ ms wall/,
    );
  });

  it('plan prints ms per pool against two shoot renders, and the changed pools', async () => {
    const result = await run('plan');
    expect(result.code, describeRun(result)).to.equal(0);
    expect(result.stdout).to.include(QUICK_NOTICE);
    expect(result.stdout).to.match(new RegExp(`^1 \\| ${number} \\| ${number} \\| ${number}x \\| 1$`, 'm'));
  });

  it('least-disruption prints restarts with `none` and with `defaults` for every change, and totals', async () => {
    const result = await run('least-disruption');
    expect(result.code, describeRun(result)).to.equal(0);
    expect(result.stdout).to.include(QUICK_NOTICE);
    expect(result.stdout).to.include(
      'change | none: restarts (kubelet) | defaults: restarts (kubelet), reloads |',
    );
    expect(result.stdout.match(/^[A-Za-z][^|]* \| \d+ \(\d+\) \| \d+ \(\d+\), \d+ \|/gm)).to.have.length(7);
    // the comment-only change: a kubelet restart with `none`, nothing with `defaults`
    expect(result.stdout).to.match(/^a comment in the kubelet unit \| 1 \(1\) \| 0 \(0\), 0 \|/m);
    expect(result.stdout).to.match(new RegExp(`^ms per plan .*: none ${number}, defaults ${number}$`, 'm'));
  });

  it('node-delay prints ours against upstream for every scenario', async () => {
    const result = await run('node-delay');
    expect(result.code, describeRun(result)).to.equal(0);
    expect(result.stdout).to.include(QUICK_NOTICE);
    expect(
      result.stdout.match(/^\| patches of other nodes per event: mean \| [\d.]+ \| [\d.]+ \|$/gm),
    ).to.have.length(3);
    expect(result.stdout).to.match(/^## 20 nodes, single joins and leaves/m);
  });

  it('apply-files prints apply and baseline figures per 1,000 files', async () => {
    const result = await run('apply-files');
    expect(result.code, describeRun(result)).to.equal(0);
    expect(result.stdout).to.include(QUICK_NOTICE);
    const row = result.stdout.split('\n').find((l) => l.startsWith('50 | '));
    expect(row, result.stdout).to.be.a('string');
    const [, steps, ...figures] = row!.split(' | ');
    expect(Number(steps)).to.be.greaterThan(50);
    for (const figure of figures) expect(figure, row).to.match(/^[\d,.]+x?$/);
  });

  it('cli-start prints every command against node -e 0 and the target verdict', async () => {
    const result = await run('cli-start');
    expect(result.code, describeRun(result)).to.equal(0);
    expect(result.stdout).to.include(QUICK_NOTICE);
    for (const command of [
      'node -e 0 (calibration)',
      'gardener-osc --version',
      'image executable: gardener-osc render',
    ])
      expect(result.stdout).to.match(
        new RegExp(`^\\| ${command.replace(/[()]/g, '\\$&')} \\| \\d+ \\| \\d+ \\| ${number}× \\|$`, 'm'),
      );
    expect(result.stdout).to.match(/^target: gardener-osc --version < 500 ms .*: (met|MISSED)/m);
  });
});
