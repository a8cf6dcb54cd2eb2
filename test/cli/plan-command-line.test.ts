/** `gardener-osc plan` as a command: --exit-code, standard input, warnings once, typos, every error path. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringifyYaml } from '../../api/index.js';
import { EXAMPLE_CLUSTER, EXAMPLE_VALUES } from '../../cli/render-command.js';
import { example, gpuMaxPods, worker } from './plan-fixtures.js';
import { runMain } from './run-main.js';

describe('gardener-osc plan (command line)', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'plan-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : stringifyYaml(content));
    return path;
  };

  it('--exit-code exits 3 when a pool changes and 0 when none does', async () => {
    const same = await runMain([
      'plan',
      '--cluster',
      EXAMPLE_CLUSTER,
      '--next',
      EXAMPLE_CLUSTER,
      '--values',
      EXAMPLE_VALUES,
      '--exit-code',
    ]);
    expect(same.code).to.equal(0);
    expect(same.stdout).to.equal('cpu-worker: unchanged\ngpu-worker: unchanged\narm-worker: unchanged\n');
    const changed = await runMain([
      'plan',
      '--cluster',
      EXAMPLE_CLUSTER,
      '--next',
      file('b.yaml', gpuMaxPods()),
      '--values',
      EXAMPLE_VALUES,
      '--exit-code',
    ]);
    expect(changed.code).to.equal(3);
    const without = await runMain([
      'plan',
      '--cluster',
      EXAMPLE_CLUSTER,
      '--next',
      file('c.yaml', gpuMaxPods()),
      '--values',
      EXAMPLE_VALUES,
    ]);
    expect(without.code).to.equal(0);
  });

  it('reads the next Cluster from standard input with --next -', async () => {
    const r = await runMain(
      ['plan', '--cluster', EXAMPLE_CLUSTER, '--next', '-', '--values', EXAMPLE_VALUES],
      stringifyYaml(gpuMaxPods()),
    );
    expect(r.code).to.equal(0);
    expect(r.stdout.split('\n')[1]).to.equal(
      'gpu-worker: kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (maxPods 64 → 74)',
    );
  });

  it('without --values warns once that CA bundles and SSH keys are placeholders', async () => {
    const r = await runMain(['plan', '--cluster', EXAMPLE_CLUSTER, '--next', file('b.yaml', gpuMaxPods())]);
    expect(r.code).to.equal(0);
    const warnings = r.stderr.split('\n').filter(Boolean);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(
      /^gardener-osc: warning: no --values: the CA bundles are placeholders and no SSH keys are rendered/,
    );
    expect(
      (
        await runMain([
          'plan',
          '--cluster',
          EXAMPLE_CLUSTER,
          '--next',
          EXAMPLE_CLUSTER,
          '--log-level',
          'error',
        ])
      ).stderr,
    ).to.equal('');
  });

  it('warns about a typo in the Shoot with "did you mean", and --strict rejects it', async () => {
    const next = example();
    const kubelet = worker(next, 'gpu-worker').kubernetes!.kubelet!;
    delete kubelet.maxPods;
    kubelet.maxPod = 74;
    const path = file('typo.yaml', next);
    const r = await runMain([
      'plan',
      '--cluster',
      EXAMPLE_CLUSTER,
      '--next',
      path,
      '--values',
      EXAMPLE_VALUES,
    ]);
    expect(r.code).to.equal(0);
    expect(r.stderr).to.equal(
      `gardener-osc: warning: next cluster ${path}: spec.shoot.spec.provider.workers[1].kubernetes.kubelet.maxPod: unknown field, did you mean "maxPods"? (ignored; --strict rejects it)\n`,
    );
    const strict = await runMain([
      'plan',
      '--cluster',
      EXAMPLE_CLUSTER,
      '--next',
      path,
      '--values',
      EXAMPLE_VALUES,
      '--strict',
    ]);
    expect(strict.code).to.equal(2);
    expect(strict.stderr).to.equal(
      `gardener-osc: invalid next cluster ${path}:\n  - spec.shoot.spec.provider.workers[1].kubernetes.kubelet.maxPod: Forbidden: unknown field, did you mean "maxPods"?\n`,
    );
  });

  it('every error is one message with exit 2 and no plan', async () => {
    const typed = example();
    typed.spec.shoot.spec.kubernetes.kubelet.maxPods = '120';
    const cases: [string[], string, string?][] = [
      [['plan', '--next', EXAMPLE_CLUSTER], "required option '--cluster <file>' not specified"],
      [['plan', '--cluster', EXAMPLE_CLUSTER], "required option '--next <file>' not specified"],
      [
        ['plan', '--cluster', EXAMPLE_CLUSTER, '--next', join(dir, 'absent.yaml')],
        `cannot read next cluster ${join(dir, 'absent.yaml')}: no such file or directory (ENOENT)`,
      ],
      [
        ['plan', '--cluster', dir, '--next', EXAMPLE_CLUSTER],
        `cannot read cluster ${dir}: illegal operation on a directory (EISDIR)`,
      ],
      [
        ['plan', '--cluster', EXAMPLE_CLUSTER, '--next', file('broken.yaml', 'spec: [\n')],
        'invalid next cluster',
      ],
      [
        ['plan', '--cluster', EXAMPLE_CLUSTER, '--next', file('typed.yaml', typed)],
        'spec.shoot.spec.kubernetes.kubelet.maxPods: Invalid value: "120": expected number, got string',
      ],
      [
        [
          'plan',
          '--cluster',
          EXAMPLE_CLUSTER,
          '--next',
          EXAMPLE_CLUSTER,
          '--values',
          file('v.yaml', { sshPublicKeys: 'x' }),
        ],
        'invalid values',
      ],
      [
        ['plan', '--cluster', '-', '--next', '-'],
        'only one option can read standard input ("-"), not --cluster and --next',
        '',
      ],
      [
        ['plan', '--cluster', EXAMPLE_CLUSTER, '--next', EXAMPLE_CLUSTER, '-o', 'xml'],
        "argument 'xml' is invalid. Allowed choices are text, yaml, json.",
      ],
    ];
    for (const [argv, message, stdin] of cases) {
      const r = await runMain(argv, stdin);
      expect(r.code, argv.join(' ')).to.equal(2);
      expect(r.stdout, argv.join(' ')).to.equal('');
      expect(r.stderr, argv.join(' ')).to.contain(message);
      expect(r.stderr, argv.join(' ')).not.to.match(/\n\s+at /);
    }
  });
});
