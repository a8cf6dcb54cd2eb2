/**
 * `npm run docs:api`: TypeDoc's reference of every module the package exports (package.json
 * `exports`), one page each.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';

const ROOT = join(import.meta.dirname, '../..');
const json = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

describe('npm run docs:api: the API reference', function () {
  this.timeout(600_000);

  it('documents every exported module of the package', () => {
    const exported = Object.values(
      json('package.json').exports as Record<string, { default?: string } | string>,
    )
      .map((target) => (typeof target === 'string' ? target : target.default))
      .filter((target): target is string => Boolean(target?.startsWith('./build/')))
      .map((target) => target.replace('./build/', '').replace(/\.js$/, '.ts'));
    expect(exported).to.have.length(4);
    expect(json('typedoc.json').entryPoints).to.have.members(exported);
    expect(json('package.json').scripts['docs:api']).to.equal('typedoc --options typedoc.json');
    const out = mkdtempSync(join(tmpdir(), 'api-reference-'));
    try {
      const run = spawnSync(
        process.execPath,
        [join(ROOT, 'node_modules/typedoc/bin/typedoc'), '--options', 'typedoc.json', '--out', out],
        { cwd: ROOT, encoding: 'utf8' },
      );
      expect(run.status, run.stderr + run.stdout).to.equal(0);
      for (const entry of exported) {
        const page = join(
          out,
          'modules',
          `${entry
            .replace(/\.ts$/, '')
            .replace(/\/index$/, '')
            .replaceAll('/', '_')}.html`,
        );
        expect(existsSync(page), page).to.equal(true);
      }
      expect(readFileSync(join(out, 'modules', 'api.html'), 'utf8')).to.contain('decodeCluster');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
