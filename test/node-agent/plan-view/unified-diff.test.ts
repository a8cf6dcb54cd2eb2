/**
 * The plan's diffs against GNU diff: the same number of changed lines as `diff --minimal` (the
 * shortest edit script), and `patch` turns the old text into the new one with them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { lineDiff } from '../../../node-agent/plan-view/line-diff.js';
import { unifiedDiff } from '../../../node-agent/plan-view/unified-diff.js';

const changedLines = (diff: string) =>
  diff.split('\n').filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l)).length;

describe('node-agent plan view: unified diff', () => {
  it('prints what diff -u prints for a small change, with headers and "No newline at end of file"', () => {
    expect(
      unifiedDiff('/etc/x', 'a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n', 'a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\nl'),
    ).to.equal(
      [
        '--- a/etc/x',
        '+++ b/etc/x',
        '@@ -1,6 +1,6 @@',
        ' a',
        ' b',
        '-c',
        '+C',
        ' d',
        ' e',
        ' f',
        '@@ -9,3 +9,4 @@',
        ' i',
        ' j',
        ' k',
        '+l',
        '\\ No newline at end of file',
        '',
      ].join('\n'),
    );
    expect(unifiedDiff('/etc/x', undefined, 'new\n')).to.equal(
      '--- /dev/null\n+++ b/etc/x\n@@ -0,0 +1 @@\n+new\n',
    );
    expect(unifiedDiff('/etc/x', 'old\n', undefined)).to.equal(
      '--- a/etc/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n',
    );
    expect(unifiedDiff('/etc/x', 'x', 'x\n')).to.equal(
      '--- a/etc/x\n+++ b/etc/x\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n',
    );
    expect(unifiedDiff('/etc/x', 'same\n', 'same\n')).to.equal('');
  });

  it('gives up on the shortest script past maxEdits, still a correct one', () => {
    const a = ['1', '2', '3'];
    const b = ['4', '5', '6'];
    const ops = lineDiff(a, b, 1);
    expect(ops.filter((o) => o.op !== '+').map((o) => o.line)).to.deep.equal(a);
    expect(ops.filter((o) => o.op !== '-').map((o) => o.line)).to.deep.equal(b);
  });

  it('is as short as diff --minimal and patch applies it, on generated texts', function () {
    this.timeout(120_000);
    const dir = mkdtempSync(join(tmpdir(), 'udiff-'));
    const line = fc.constantFrom('a', 'b', 'c', 'maxPods: 110', '', '  x: 1');
    const text = fc
      .tuple(fc.array(line, { maxLength: 25 }), fc.boolean())
      .map(([lines, newline]) => (lines.length === 0 ? '' : `${lines.join('\n')}${newline ? '\n' : ''}`));
    try {
      fc.assert(
        fc.property(text, text, (before, after) => {
          const a = join(dir, 'a');
          const b = join(dir, 'b');
          writeFileSync(a, before);
          writeFileSync(b, after);
          const ours = unifiedDiff('/f', before, after);
          const gnu = spawnSync('diff', ['--minimal', '-u', a, b], { encoding: 'utf8' }).stdout;
          expect(changedLines(ours)).to.equal(changedLines(gnu));
          if (ours === '') {
            expect(before).to.equal(after);
          } else {
            execFileSync('patch', ['-s', '-p1', '-o', join(dir, 'out'), a], { input: ours });
            expect(readFileSync(join(dir, 'out'), 'utf8')).to.equal(after);
          }
        }),
        { numRuns: 150 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
