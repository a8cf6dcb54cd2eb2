/** `--no-values` silences only the placeholder warning; `plan` warns when the two Clusters are different shoots. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { EXAMPLE_CLUSTER } from '../../cli/render-command.js';
import { runMain } from './run-main.js';

describe('gardener-osc: --no-values and plans across shoots', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'no-values-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const example = readFileSync(EXAMPLE_CLUSTER, 'utf8');
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('--no-values renders the placeholders without their warning, and typos still warn', async () => {
    const warned = await runMain(['render', '--cluster', EXAMPLE_CLUSTER]);
    expect(warned.stderr).to.contain('or --no-values to render with placeholders without this warning');
    const quiet = await runMain(['render', '--cluster', EXAMPLE_CLUSTER, '--no-values']);
    expect(quiet.code).to.equal(0);
    expect(quiet.stderr).to.equal('');
    expect(quiet.stdout).to.equal(warned.stdout);
    const typo = file('typo.yaml', example.replace('        maxPods: 110', '        maxPod: 110'));
    const r = await runMain(['render', '--cluster', typo, '--no-values']);
    expect(r.stderr).to.equal(
      `gardener-osc: warning: cluster ${typo}: spec.shoot.spec.kubernetes.kubelet.maxPod: unknown field, did you mean "maxPods"? (ignored; --strict rejects it)\n`,
    );
    const plan = await runMain([
      'plan',
      '--cluster',
      EXAMPLE_CLUSTER,
      '--next',
      EXAMPLE_CLUSTER,
      '--no-values',
    ]);
    expect(plan.code).to.equal(0);
    expect(plan.stderr).to.equal('');
  });

  it('plan warns when --cluster and --next hold different shoots', async () => {
    const other = file(
      'other.yaml',
      example
        .replace('  name: shoot--dev--demo', '  name: shoot--dev--other')
        .replace(/\n {6}name: demo\n/, '\n      name: other\n'),
    );
    const r = await runMain(['plan', '--cluster', EXAMPLE_CLUSTER, '--next', other, '--no-values']);
    expect(r.code).to.equal(0);
    expect(r.stderr).to.equal(
      `gardener-osc: warning: cluster ${EXAMPLE_CLUSTER} and next cluster ${other} are different shoots (garden-dev/demo in Cluster shoot--dev--demo, garden-dev/other in Cluster shoot--dev--other): the plan compares the nodes of two shoots\n`,
    );
  });
});
