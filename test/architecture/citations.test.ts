/**
 * Citations a reader of a clone can open. A comment or doc says where a behaviour comes from by
 * naming upstream's file at a version (`gardener v1.91.4 pkg/nodeagent/...`), a pull request
 * (`gardener/gardener#9477`) or one of our docs; it never points at section numbers of a text
 * outside the repository, or at a path beside the repository. Test-vector ids (`S-TV-n`,
 * `N-TV-n`) are allowed because docs/test-vectors.md defines each one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';

const ROOT = resolve(import.meta.dirname, '../..');

/** Where nothing of ours lives: installed packages, build output, git's own files. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', 'coverage', '.git', '.cache']);
const TEXT_EXTENSIONS = new Set(['.ts', '.mts', '.mjs', '.js', '.sh', '.go', '.md', '.yaml', '.yml', '']);

// Built from parts, so this file does not match itself.
const SECTION = new RegExp(`${'\u00a7'}\\s*\\d`);
const SIBLING_PATH = new RegExp(`\\.\\./${'shared'}/`);
const VECTOR_ID = /\b[SN]-TV-\d+\b/g;

function textFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED_DIRS.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return textFiles(path);
    return TEXT_EXTENSIONS.has(extname(name)) ? [path] : [];
  });
}

const files = textFiles(ROOT).map((path) => ({
  file: relative(ROOT, path),
  lines: readFileSync(path, 'utf8').split('\n'),
}));

function linesMatching(pattern: RegExp): string[] {
  return files.flatMap(({ file, lines }) =>
    lines.flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('architecture: citations a reader can open', () => {
  it('finds the files it checks', () => {
    const names = files.map(({ file }) => file);
    expect(names).to.include.members(['README.md', 'docs/architecture.md', 'api/keys.ts']);
  });

  it('cites no section numbers of texts outside the repository', () => {
    expect(linesMatching(SECTION)).to.deep.equal([]);
  });

  it('points at no path beside the repository', () => {
    expect(linesMatching(SIBLING_PATH)).to.deep.equal([]);
  });

  it('names only test vectors docs/test-vectors.md defines', () => {
    const defined = new Set(
      readFileSync(join(ROOT, 'docs/test-vectors.md'), 'utf8')
        .split('\n')
        .flatMap((line) => /^\| ([SN]-TV-\d+) \|/.exec(line)?.[1] ?? []),
    );
    const undefinedIds = files.flatMap(({ file, lines }) =>
      lines.flatMap((line, i) =>
        [...line.matchAll(VECTOR_ID)]
          .map((m) => m[0])
          .filter((id) => !defined.has(id))
          .map((id) => `${file}:${i + 1}: ${id}`),
      ),
    );
    expect(defined.size).to.be.greaterThan(40);
    expect(undefinedIds).to.deep.equal([]);
  });
});
