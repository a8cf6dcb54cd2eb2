/**
 * The benchmarks that start API servers of their own (hack/envtest), each run end to end at its
 * `--quick` size: a benchmark that no longer runs fails here instead of when someone next wants
 * its figures. Only that it completes and prints its figures is asserted, never a timing
 * (docs/benchmarks.md).
 */
import { expect } from 'chai';
import { type BenchRun, describeRun, QUICK_NOTICE, startQuickBenches } from '../../support/bench-run.js';

const number = String.raw`\d+(?:\.\d+)?`;

describe('benchmarks with API servers, at their --quick size', function () {
  // three at a time: a test's time includes its wait for a free slot
  this.timeout(1_200_000);
  let run: (
    key: 'node' | 'serviceAccount' | 'authorizer' | 'dead-watch' | 'rollout' | 'controller-manager',
  ) => Promise<BenchRun>;
  before(() => {
    // the longest first
    run = startQuickBenches(
      {
        rollout: { script: 'rollout.ts', timeoutMs: 540_000 },
        node: { script: 'node-agent.ts', args: ['--identity', 'node'], timeoutMs: 540_000 },
        serviceAccount: {
          script: 'node-agent.ts',
          args: ['--identity', 'serviceAccount'],
          timeoutMs: 540_000,
        },
        'controller-manager': { script: 'controller-manager.ts', timeoutMs: 540_000 },
        authorizer: { script: 'node-agent-authorizer.ts', timeoutMs: 540_000 },
        'dead-watch': { script: 'dead-watch.ts', timeoutMs: 300_000 },
      },
      3,
    );
  });

  for (const identity of ['node', 'serviceAccount'] as const) {
    it(`node-agent with the ${identity} identity: first apply, idle RSS, updates, requests, the v1.150.0 pool`, async () => {
      const result = await run(identity);
      expect(result.code, describeRun(result)).to.equal(0);
      expect(result.stdout).to.include(QUICK_NOTICE);
      expect(result.stdout).to.include(`options: identity ${identity},`);
      expect(result.stdout).to.match(/^## API requests by \S+ in the steady-state window$/m);
      if (identity === 'node')
        expect(result.stdout).to.match(
          /## API requests by gardener\.cloud:node-agent:machine:bench-node-agent-/,
        );
      else
        expect(result.stdout).to.include(
          '## API requests by system:serviceaccount:kube-system:gardener-node-agent',
        );
      expect(result.stdout).to.match(
        new RegExp(
          `^\\| idle after the first apply \\+ 1s \\(median of 10 samples\\) \\| ${number} \\|`,
          'm',
        ),
      );
      expect(
        result.stdout.match(
          new RegExp(`^\\| \\*\\*last systemd call \\(fs.watch\\)\\*\\* \\| ${number} \\|`, 'gm'),
        ),
      ).to.have.length(2);
      expect(result.stdout).to.match(
        /^## The v1\.150\.0 pool beside the v1\.91\.4 pool \(same run, small cluster\)$/m,
      );
      if (identity === 'node') {
        // the v1.150.0 pool's agent applied its OSC, containerd included, and was measured
        for (const figure of [
          'update → last systemd call \\(fs\\.watch\\), p50 \\(ms\\)',
          'update → last systemd call \\(fs\\.watch\\), p90 \\(ms\\)',
          'idle RSS after the first apply \\+ 1s, median of 10 samples \\(MiB\\)',
        ])
          expect(result.stdout).to.match(
            new RegExp(`^\\| ${figure} \\| ${number} \\| ${number} \\| ${number}× \\|$`, 'm'),
          );
        expect(result.stdout).to.match(
          /^containerd at the v1\.150\.0 pool's first apply: config\.toml written \(\d+ bytes\), containerd\.service restarted [1-9]\d*×$/m,
        );
      } else expect(result.stdout).to.include('not measured with --identity serviceAccount');
    });
  }

  it('node-agent-authorizer: decision latency against the baseline, and idle agents', async () => {
    const result = await run('authorizer');
    expect(result.code, describeRun(result)).to.equal(0);
    expect(result.stdout).to.include(QUICK_NOTICE);
    for (const rate of [300, 1000])
      for (const server of ['baseline', 'authorizer'])
        expect(result.stdout).to.match(
          new RegExp(`^\\| ${rate} \\| ${server} \\| \\d+ \\| ${number} \\|`, 'm'),
        );
    expect(result.stdout).to.match(/^\| webhook decisions \| \d+ /m);
  });

  it('dead-watch: the re-open after a freeze and the change seen', async () => {
    const result = await run('dead-watch');
    expect(result.code, describeRun(result)).to.equal(0);
    expect(result.stdout).to.include(QUICK_NOTICE);
    expect(result.stdout).to.match(new RegExp(`^\\| 1 \\| ${number} \\| ${number} \\| ${number} \\|$`, 'm'));
  });

  it('rollout: blast radius and rollout time, gated against delays alone, measured and modelled', async () => {
    const result = await run('rollout');
    expect(result.code, describeRun(result)).to.equal(0);
    expect(result.stdout).to.include(QUICK_NOTICE);
    expect(
      result.stdout.match(/^\| bad change: nodes that applied it \| \d+ of 6 \| \d+ of 6 /gm),
    ).to.have.length(2);
    expect(result.stdout.match(/^\| healthy change: every node updated after \| /gm)).to.have.length(2);
  });

  it('controller-manager: reconcile time, RSS, requests and restart at one shoot', async () => {
    const result = await run('controller-manager');
    expect(result.code, describeRun(result)).to.equal(0);
    expect(result.stdout).to.include(QUICK_NOTICE);
    expect(result.stdout).to.include('options: shoots 1; 2 Nodes per pool; idle window 10s');
    expect(result.stdout).to.match(
      new RegExp(`^\\| working tree \\| 1 \\| ${number} \\| ${number} \\| ${number} \\| ${number} \\|`, 'm'),
    );
    expect(result.stdout).to.match(/restart: exit code 0;/);
  });
});
