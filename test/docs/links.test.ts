/**
 * Every relative link of the README, docs/ and the folders' READMEs resolves: the file exists and,
 * for a link into a Markdown page, so does the heading it names (GitHub's anchor of it).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';

const ROOT = resolve(import.meta.dirname, '../..');
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', 'coverage', '.git', '.cache']);

function markdownPages(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED_DIRS.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownPages(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The text outside fenced code blocks, where a `](...)` is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(markdown).matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const slug = (match[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}_\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

function brokenLinks(page: string, markdown = readFileSync(page, 'utf8')): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].flatMap((match) => {
    const target = match[1] ?? '';
    if (/^[a-z]+:/.test(target)) return [];
    const [path = '', anchor] = target.split('#');
    const where = `${relative(ROOT, page)}: ${target}`;
    const file = resolve(dirname(page), path);
    if (path !== '' && !existsSync(file)) return [`${where} (no such file)`];
    if (!anchor || (path !== '' && !file.endsWith('.md'))) return [];
    const headings = anchorsOf(path === '' ? markdown : readFileSync(file, 'utf8'));
    return headings.has(anchor) ? [] : [`${where} (no such heading)`];
  });
}

describe('docs: relative links resolve', () => {
  const pages = markdownPages(ROOT);

  it('checks the README and every page of docs/', () => {
    const names = pages.map((page) => relative(ROOT, page));
    expect(names).to.include.members(['README.md', 'docs/install.md', 'docs/testing.md']);
  });

  it('finds a broken file or heading link (the check can fail)', () => {
    const page = join(ROOT, 'docs/example.md');
    const markdown = '[a](nope.md) [b](install.md#nope) [c](install.md#cold-builds) [d](#here)\n# Here\n';
    expect(brokenLinks(page, markdown)).to.deep.equal([
      'docs/example.md: nope.md (no such file)',
      'docs/example.md: install.md#nope (no such heading)',
    ]);
    expect(anchorsOf('## Real nodes (`test/real-node/`)\n')).to.include('real-nodes-testreal-node');
  });

  it('every relative link names an existing file and heading', () => {
    expect(pages.flatMap((page) => brokenLinks(page))).to.deep.equal([]);
  });
});
