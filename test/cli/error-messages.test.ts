/**
 * One style for every error of the command line: the program's name as the only prefix, then the
 * field, what was found and what is allowed; never raw input bytes, a cut-off code frame or zod's
 * own wording.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { formatFieldError } from '../../api/index.js';
import { EXAMPLE_CLUSTER } from '../../cli/render-command.js';
import { runMain } from './run-main.js';

const ZOD_WORDING = /Invalid input|Too big|Too small|Unrecognized key|expected record|<root>/;

describe('gardener-osc: error messages', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'errors-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string | Buffer) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('binary input is named, never echoed', async () => {
    const gz = file('cluster.yaml.gz', gzipSync(Buffer.from('kind: Cluster\n'.repeat(400))));
    const r = await runMain(['render', '--cluster', gz]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal(
      `gardener-osc: cannot read cluster ${gz}: not YAML or JSON text: bytes that are not UTF-8 at character 2 (it looks gzip-compressed)\n`,
    );
    const nul = file('nul.yaml', Buffer.concat([Buffer.from('kind: Cluster\nspec: "'), Buffer.alloc(4000)]));
    const n = await runMain(['render', '--cluster', nul]);
    expect(n.stderr).to.equal(
      `gardener-osc: cannot read cluster ${nul}: not YAML or JSON text: a NUL byte at character 22\n`,
    );
  });

  it('a long value found is cut to a readable length', () => {
    const line = formatFieldError({
      type: 'Invalid',
      field: 'spec.x',
      value: 'a'.repeat(5000),
      detail: 'bad',
    });
    expect(line).to.equal(`spec.x: Invalid value: "${'a'.repeat(59)}… (5000 characters): bad`);
  });

  it('a YAML syntax error says where, with the line it means', async () => {
    const bad = file('bad.yaml', 'apiVersion: x\nkind: Cluster\nspec:\n  shoot: [\n');
    const r = await runMain(['render', '--cluster', bad]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal(
      `gardener-osc: invalid cluster ${bad}: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 5, column 1 (after line 4: "  shoot: [")\n`,
    );
    const tab = file('tab.yaml', 'a: b\n  c: d\n');
    const t = await runMain(['render', '--cluster', tab]);
    expect(t.stderr).to.equal(
      `gardener-osc: invalid cluster ${tab}: not valid YAML: Nested mappings are not allowed in compact mappings at line 1, column 4 (near "a: b")\n`,
    );
  });

  it('a Shoot where the Cluster belongs: what was found, what is allowed, where the Shoot goes', async () => {
    const shoot = file(
      'shoot.yaml',
      'apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nmetadata: {name: a}\n',
    );
    const r = await runMain(['render', '--cluster', shoot]);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal(
      [
        `gardener-osc: invalid cluster ${shoot}:`,
        '  - apiVersion: Unsupported value: "core.gardener.cloud/v1beta1": supported values: "extensions.gardener.cloud/v1alpha1"',
        '  - kind: Unsupported value: "Shoot": supported values: "Cluster" (a Cluster holds the Shoot under spec.shoot; the seed has it: kubectl get cluster <shoot namespace> -o yaml)',
        '  - spec: Required value: expected object',
        '',
      ].join('\n'),
    );
  });

  it('bounds and formats in Kubernetes words, with the value found', async () => {
    const config = file(
      'config.yaml',
      [
        'apiVersion: node-configuration.gardener.cloud/v1alpha1',
        'kind: ControllerManagerConfiguration',
        'clusterSelector: {}',
        'server:',
        '  metrics:',
        '    port: 70000',
        '',
      ].join('\n'),
    );
    const r = await runMain(['controller-manager', '--config', config, '--check-config']);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal(
      [
        `gardener-osc: invalid configuration ${config}:`,
        '  - clusterSelector.matchLabels: Required value: expected object',
        '  - server.metrics.port: Invalid value: 70000: must be less than or equal to 65535',
        '',
      ].join('\n'),
    );
    const values = file('values.yaml', 'apiServerUrl: http://x\nnodeLogging: "yes"\n');
    const v = await runMain(['render', '--cluster', EXAMPLE_CLUSTER, '--values', values]);
    expect(v.stderr).to.equal(
      [
        `gardener-osc: invalid values ${values}:`,
        '  - apiServerUrl: Invalid value: "http://x": must be a valid url',
        '  - nodeLogging: Invalid value: "yes": expected boolean, got string',
        '',
      ].join('\n'),
    );
    const root = file('list.yaml', '- a\n');
    const l = await runMain(['render', '--cluster', EXAMPLE_CLUSTER, '--values', root]);
    expect(l.stderr).to.equal(
      `gardener-osc: invalid values ${root}:\n  - <the document>: Invalid value: expected object, got array\n`,
    );
    for (const out of [r, v, l]) expect(out.stderr).to.not.match(ZOD_WORDING);
  });

  it("one prefix: commander's own errors carry the program's name too", async () => {
    const r = await runMain(['render', '--bogus']);
    expect(r.code).to.equal(2);
    expect(r.stderr).to.equal("gardener-osc: unknown option '--bogus'\n(run with --help for usage)\n");
    const t = await runMain(['render', '--target', 'x']);
    expect(t.stderr.split('\n')[0]).to.match(
      /^gardener-osc: option '--target <target>' argument 'x' is invalid/,
    );
  });
});
