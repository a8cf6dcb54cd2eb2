/**
 * The benchmarks that start API servers of their own (hack/envtest), each run end to end at its
 * `--quick` size: a benchmark that no longer runs fails here instead of when someone next wants
 * its figures. Only that it completes and prints its figures is asserted, never a timing
 * (docs/benchmarks.md).
 */
import { expect } from 'chai';
import { describeRun, QUICK_NOTICE, runQuickBench } from '../../support/bench-run.js';

const number = String.raw`\d+(?:\.\d+)?`;

describe('benchmarks with API servers, at their --quick size', function () {
  this.timeout(600_000);

  for (const identity of ['node', 'serviceAccount']) {
    it(`node-agent with the ${identity} identity: first apply, idle RSS, updates and requests`, async () => {
      const run = await runQuickBench('node-agent.ts', ['--identity', identity], 540_000);
      expect(run.code, describeRun(run)).to.equal(0);
      expect(run.stdout).to.include(QUICK_NOTICE);
      expect(run.stdout).to.include(`options: identity ${identity},`);
      expect(run.stdout).to.match(/^## API requests by \S+ in the steady-state window$/m);
      if (identity === 'node')
        expect(run.stdout).to.match(
          /## API requests by gardener\.cloud:node-agent:machine:bench-node-agent-/,
        );
      else
        expect(run.stdout).to.include(
          '## API requests by system:serviceaccount:kube-system:gardener-node-agent',
        );
      expect(run.stdout).to.match(
        new RegExp(
          `^\\| idle after the first apply \\+ 1s \\(median of 10 samples\\) \\| ${number} \\|`,
          'm',
        ),
      );
      expect(
        run.stdout.match(
          new RegExp(`^\\| \\*\\*last systemd call \\(fs.watch\\)\\*\\* \\| ${number} \\|`, 'gm'),
        ),
      ).to.have.length(2);
    });
  }

  it('node-agent-authorizer: decision latency against the baseline, and idle agents', async () => {
    const run = await runQuickBench('node-agent-authorizer.ts', [], 540_000);
    expect(run.code, describeRun(run)).to.equal(0);
    expect(run.stdout).to.include(QUICK_NOTICE);
    for (const rate of [300, 1000])
      for (const server of ['baseline', 'authorizer'])
        expect(run.stdout).to.match(new RegExp(`^\\| ${rate} \\| ${server} \\| \\d+ \\| ${number} \\|`, 'm'));
    expect(run.stdout).to.match(/^\| webhook decisions \| \d+ /m);
  });

  it('dead-watch: the re-open after a freeze and the change seen', async () => {
    const run = await runQuickBench('dead-watch.ts', [], 300_000);
    expect(run.code, describeRun(run)).to.equal(0);
    expect(run.stdout).to.include(QUICK_NOTICE);
    expect(run.stdout).to.match(new RegExp(`^\\| 1 \\| ${number} \\| ${number} \\| ${number} \\|$`, 'm'));
  });

  it('rollout: blast radius and rollout time, gated against delays alone, measured and modelled', async () => {
    const run = await runQuickBench('rollout.ts', [], 540_000);
    expect(run.code, describeRun(run)).to.equal(0);
    expect(run.stdout).to.include(QUICK_NOTICE);
    expect(
      run.stdout.match(/^\| bad change: nodes that applied it \| \d+ of 6 \| \d+ of 6 /gm),
    ).to.have.length(2);
    expect(run.stdout.match(/^\| healthy change: every node updated after \| /gm)).to.have.length(2);
  });

  it('controller-manager: reconcile time, RSS, requests and restart at one shoot', async () => {
    const run = await runQuickBench('controller-manager.ts', [], 540_000);
    expect(run.code, describeRun(run)).to.equal(0);
    expect(run.stdout).to.include(QUICK_NOTICE);
    expect(run.stdout).to.include('options: shoots 1; 2 Nodes per pool; idle window 10s');
    expect(run.stdout).to.match(
      new RegExp(`^\\| working tree \\| 1 \\| ${number} \\| ${number} \\| ${number} \\| ${number} \\|`, 'm'),
    );
    expect(run.stdout).to.match(/restart: exit code 0;/);
  });
});
