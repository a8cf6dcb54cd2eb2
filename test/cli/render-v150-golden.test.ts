/**
 * The v1.150.0 contract's render of the example (examples/cluster-v1.150.yaml, selected by its
 * annotation) as golden files: the seed and shoot objects as `gardener-osc render` prints them,
 * and the review form (`--decode`) with the Brotli-compressed ManagedResource data shown as YAML.
 * test/compat/v1.150/whole-render.test.ts proves the same bytes against gardenlet v1.150.0.
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { stringifyYaml } from '../../api/index.js';
import { DEFAULT_NOW, render } from '../../cli/render-command.js';
import { expectGolden } from '../golden.js';
import { runMain } from './run-main.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');
const CLUSTER = join(EXAMPLES, 'cluster-v1.150.yaml');
const VALUES = join(EXAMPLES, 'values.yaml');

const yaml = (target: 'seed' | 'shoot') => {
  const result = render({ cluster: CLUSTER, values: VALUES, target, now: DEFAULT_NOW });
  expect(result.gardenerVersion).to.equal('v1.150.0');
  expect(result.warnings).to.deep.equal([]);
  return result.objects.map((o) => stringifyYaml(o)).join('---\n');
};

describe('gardener-osc render of the v1.150.0 example (golden files)', function () {
  this.timeout(60_000);

  it('writes the seed objects (render-v1.150/example-seed.yaml)', () => {
    expectGolden('render-v1.150/example-seed.yaml', yaml('seed'));
  });

  it('writes the shoot objects (render-v1.150/example-shoot.yaml)', () => {
    expectGolden('render-v1.150/example-shoot.yaml', yaml('shoot'));
  });

  it('--decode shows the compressed ManagedResource data and the osc.yaml inside it (render-v1.150/example-seed-decoded.yaml)', async () => {
    const r = await runMain(['render', '--cluster', CLUSTER, '--values', VALUES, '--decode']);
    expect(r.code).to.equal(0);
    expect(r.stdout).to.not.match(/data\.yaml\.br: [A-Za-z0-9+/]/);
    expect(r.stdout).to.include('cgroupDriver: systemd');
    expectGolden('render-v1.150/example-seed-decoded.yaml', r.stdout);
  });
});
