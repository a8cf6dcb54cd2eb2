/**
 * Typos in every input of the command line, as `kubectl --validate=strict` finds them: at every
 * depth of the Cluster (its Shoot, CloudProfile and Seed), in the render values and in the
 * controller-manager configuration, each named by its path with the closest known name.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseYaml, stringifyYaml } from '../../api/index.js';
import { EXAMPLE_CLUSTER, EXAMPLE_VALUES } from '../../cli/render-command.js';
import { runMain } from './run-main.js';

type Fields = Record<string, unknown>;

describe('gardener-osc: unknown fields at every depth', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'typos-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : stringifyYaml(content));
    return path;
  };
  const example = () =>
    parseYaml(readFileSync(EXAMPLE_CLUSTER, 'utf8')) as { spec: Fields & { shoot: { spec: Fields } } };

  /** The example with typos outside spec.kubernetes and spec.provider (which render the same). */
  const typos = () => {
    const cluster = example();
    const spec = cluster.spec.shoot.spec;
    spec.systemComponents = { nodeLocalDns: { enabled: false }, nodeLocalDNS: { enabled: true } };
    spec.networkin = spec.networking;
    cluster.spec.status = { technicalID: 'shoot--dev--demo' };
    return cluster;
  };
  const warnings = (path: string, what = 'cluster') =>
    [
      `gardener-osc: warning: ${what} ${path}: spec.shoot.spec.networkin: unknown field, did you mean "networking"? (ignored; --strict rejects it)`,
      `gardener-osc: warning: ${what} ${path}: spec.shoot.spec.systemComponents.nodeLocalDns: unknown field, did you mean "nodeLocalDNS"? (ignored; --strict rejects it)`,
      `gardener-osc: warning: ${what} ${path}: spec.status: unknown field (ignored; --strict rejects it)`,
      '',
    ].join('\n');

  it('render warns about typos anywhere in the Cluster; --strict rejects them all', async () => {
    const path = file('typos.yaml', typos());
    const r = await runMain(['render', '--cluster', path, '--values', EXAMPLE_VALUES]);
    expect(r.code).to.equal(0);
    expect(r.stderr).to.equal(warnings(path));
    const strict = await runMain(['render', '--cluster', path, '--values', EXAMPLE_VALUES, '--strict']);
    expect(strict.code).to.equal(2);
    expect(strict.stdout).to.equal('');
    expect(strict.stderr).to.equal(
      [
        `gardener-osc: invalid cluster ${path}:`,
        '  - spec.shoot.spec.networkin: Forbidden: unknown field, did you mean "networking"?',
        '  - spec.shoot.spec.systemComponents.nodeLocalDns: Forbidden: unknown field, did you mean "nodeLocalDNS"?',
        '  - spec.status: Forbidden: unknown field',
        '',
      ].join('\n'),
    );
  });

  it('fields Gardener knows but we do not model never warn', async () => {
    const cluster = example();
    const spec = cluster.spec.shoot.spec;
    spec.maintenance = { autoUpdate: { kubernetesVersion: true }, timeWindow: { begin: '220000+0100' } };
    spec.kubernetes = { ...(spec.kubernetes as Fields), kubeAPIServer: { auditConfig: { auditPolicy: {} } } };
    spec.tolerations = [{ key: 'a' }];
    const r = await runMain(['render', '--cluster', file('known.yaml', cluster), '--values', EXAMPLE_VALUES]);
    expect(r.code).to.equal(0);
    expect(r.stderr).to.equal('');
  });

  it('a misspelt required field is named beside the missing one', async () => {
    const cluster = example();
    cluster.spec.shoot.spec.porvider = cluster.spec.shoot.spec.provider;
    delete cluster.spec.shoot.spec.provider;
    const path = file('porvider.yaml', cluster);
    const r = await runMain(['render', '--cluster', path, '--values', EXAMPLE_VALUES]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal(
      [
        `gardener-osc: invalid cluster ${path}:`,
        '  - spec.shoot.spec.provider: Required value: expected object',
        '  - spec.shoot.spec.porvider: Forbidden: unknown field, did you mean "provider"?',
        '',
      ].join('\n'),
    );
  });

  it('plan --exit-code: a change that is only a typo warns instead of passing silently', async () => {
    const path = file('typos.yaml', typos());
    const r = await runMain([
      'plan',
      '--cluster',
      EXAMPLE_CLUSTER,
      '--next',
      path,
      '--values',
      EXAMPLE_VALUES,
      '--exit-code',
    ]);
    expect(r.code).to.equal(0);
    expect(r.stderr).to.equal(warnings(path, 'next cluster'));
  });

  it('values and the controller-manager configuration name each unknown field with the closest name', async () => {
    const values = parseYaml(readFileSync(EXAMPLE_VALUES, 'utf8')) as Fields & { caBundles: Fields };
    values.caBundles.kubelett = values.caBundles.kubelet;
    values.image = {};
    const valuesPath = file('values.yaml', values);
    const r = await runMain(['render', '--cluster', EXAMPLE_CLUSTER, '--values', valuesPath]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal(
      [
        `gardener-osc: invalid values ${valuesPath}:`,
        '  - caBundles.kubelett: Forbidden: unknown field, did you mean "kubelet"?',
        '  - image: Forbidden: unknown field, did you mean "images"?',
        '',
      ].join('\n'),
    );
    const config = file(
      'config.yaml',
      [
        'apiVersion: node-configuration.gardener.cloud/v1alpha1',
        'kind: ControllerManagerConfiguration',
        'clusterSelector: {}',
        'controllers:',
        '  rolout: {}',
        '',
      ].join('\n'),
    );
    const c = await runMain(['controller-manager', '--config', config, '--check-config']);
    expect(c.code).to.equal(2);
    expect(c.stderr).to.contain(
      '  - controllers.rolout: Forbidden: unknown field, did you mean "rollout"?\n',
    );
  });
});
