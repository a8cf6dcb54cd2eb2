/**
 * The README stays a front page: what this is, the two commands `.ci/run` and a newcomer run, and a
 * tour that links every page of docs/. Detail lives in docs/, in tables a reader can scan.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';

const ROOT = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Pages written as scannable tables; their cells stay short (the README's detail moved there). */
const SHORT_CELL_PAGES = [
  'README.md',
  'docs/install.md',
  'docs/cli.md',
  'docs/node-agent.md',
  'docs/library.md',
  'docs/testing.md',
  'docs/demo.md',
  'docs/layout.md',
  'docs/test-vectors.md',
];
const MAX_CELL = 300;

function longCells(page: string): string[] {
  return read(page)
    .split('\n')
    .flatMap((line, i) =>
      line.startsWith('|')
        ? line
            .split(/(?<!\\)\|/)
            .slice(1, -1)
            .filter((cell) => cell.trim().length > MAX_CELL)
            .map((cell) => `${page}:${i + 1}: ${cell.trim().length} characters`)
        : [],
    );
}

describe('README: a front page', () => {
  const readme = read('README.md');

  it('shows the quick start commands CI runs', () => {
    const quickStart = /## Quick start\n\n```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = quickStart.split('\n').map((line) => (line.split(/\s+#/)[0] ?? '').trim());
    expect(commands.filter(Boolean)).to.deep.equal(['npm ci && npm start', 'npm test']);
    expect(read('.ci/run')).to.contain('npm test').and.to.contain('npm start');
  });

  it('links every page of docs/ from its tour', () => {
    const tour = readme.slice(readme.indexOf('## A tour'));
    const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    expect(pages.filter((name) => !tour.includes(`](docs/${name})`))).to.deep.equal([]);
  });

  it(`keeps table cells of the README and its detail pages under ${MAX_CELL} characters`, () => {
    expect(SHORT_CELL_PAGES.flatMap(longCells)).to.deep.equal([]);
  });

  it('stays short', () => {
    expect(readme.split('\n').length).to.be.below(120);
  });
});
