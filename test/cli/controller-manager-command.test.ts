/** `gardener-osc controller-manager` and `manifests`: configuration errors exit 2 naming the field; the manifests. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { parseYaml } from '../../api/index.js';
import { manifests } from '../../cli/manifests-command.js';

const ROOT = resolve(import.meta.dirname, '../..');
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'cli/main.ts'), ...args], {
    encoding: 'utf8',
    cwd: ROOT,
  });

describe('gardener-osc controller-manager and manifests', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'osc-cm-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('exits 2 before starting anything when the configuration is invalid, naming every bad field', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: ControllerManagerConfiguration\nclusterSelector:\n  matchLabels: {}\napplyMode: sideways\n',
    );
    const result = run('controller-manager', '--config', file);
    expect(result.status).to.equal(2);
    expect(result.stderr).to.include('clusterSelector.matchLabels');
    expect(result.stderr).to.include('applyMode');
  });

  it('prints the seed manifests: ServiceAccount, ClusterRole, binding, the configuration, the Deployment', () => {
    const text = manifests({
      config: join(ROOT, 'examples/controller-manager.yaml'),
      namespace: 'garden',
      image: 'example.org/gardener-osc:v1',
      replicas: '2',
    });
    const docs = text
      .split(/^---$/m)
      .map((d) => parseYaml(d) as { kind: string; data?: Record<string, string> });
    expect(docs.map((d) => d.kind)).to.deep.equal([
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'Deployment',
    ]);
    const config = parseYaml(docs[3]?.data?.['config.yaml'] ?? '') as {
      applyMode: string;
      clusterSelector: unknown;
    };
    expect(config.applyMode).to.equal('direct');
    expect(config.clusterSelector).to.deep.equal({
      matchLabels: { 'node-configuration.gardener.cloud/controller-manager': 'true' },
    });
  });

  it('prints the minimum shoot role for the configured apply mode', () => {
    const role = parseYaml(
      manifests({
        config: join(ROOT, 'examples/controller-manager.yaml'),
        namespace: 'garden',
        image: 'x',
        replicas: '1',
        shootRole: true,
      }),
    ) as { kind: string; rules: { verbs: string[] }[] };
    expect(role.kind).to.equal('ClusterRole');
    expect(role.rules.flatMap((r) => r.verbs)).to.include('escalate');
  });
});
