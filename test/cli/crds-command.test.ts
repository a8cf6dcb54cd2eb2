import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { renderCrdFile } from '../../api/crds.js';
import { parseYamlDocuments } from '../../api/yaml/codec.js';
import { ensurePackageBuilt } from '../support/package-build.js';

const run = promisify(execFile);
const CLI = join(import.meta.dirname, '../../cli/main.ts');

async function osc(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', CLI, ...args]);
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('gardener-osc CLI', function () {
  this.timeout(30_000);

  it('crds prints the three CRDs as multi-document YAML', async () => {
    const { code, stdout } = await osc('crds');
    expect(code).to.equal(0);
    const docs = parseYamlDocuments(stdout) as { metadata: { name: string } }[];
    expect(docs.map((d) => d.metadata.name)).to.deep.equal([
      'operatingsystemconfigs.extensions.gardener.cloud',
      'clusters.extensions.gardener.cloud',
      'managedresources.resources.gardener.cloud',
    ]);
  });

  it('crds --output writes one file per CRD', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crds-'));
    try {
      expect((await osc('crds', '--output', dir)).code).to.equal(0);
      expect(readdirSync(dir).sort()).to.deep.equal([
        'clusters.yaml',
        'managedresources.yaml',
        'operatingsystemconfigs.yaml',
      ]);
      expect(readFileSync(join(dir, 'clusters.yaml'), 'utf8')).to.equal(renderCrdFile('clusters.yaml'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the package executable runs without the test loader, and ends quietly on a closed pipe', async function () {
    this.timeout(180_000);
    ensurePackageBuilt();
    const bin = join(import.meta.dirname, '../../cli/bin.mjs');
    const { stdout } = await run(bin, ['--version']);
    expect(stdout.trim()).to.match(/^\d+\.\d+\.\d+$/);
    const piped = await run('bash', ['-c', `set -o pipefail; "${bin}" render | head -n 1`]);
    expect(piped.stdout).to.equal('apiVersion: v1\n');
  });

  it('--help exits 0; an unknown command exits 2 and says so', async () => {
    const help = await osc('--help');
    expect(help.code).to.equal(0);
    expect(help.stdout).to.contain('crds');
    const bad = await osc('frobnicate');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain("unknown command 'frobnicate'");
  });
});
