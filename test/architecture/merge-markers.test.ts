/** No file of the repository holds a merge conflict's markers (a merge that auto-resolved badly). */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';

const ROOT = join(import.meta.dirname, '../..');
const MARKER = /^(<{7}|>{7}) |^={7}$/m;

function filesWithMarkers(files: readonly string[], read: (file: string) => string): string[] {
  return files.filter((f) => MARKER.test(read(f)));
}

describe('repository: no merge conflict markers', () => {
  it('finds none in the tracked text files', () => {
    const files = execFileSync(
      'git',
      ['ls-files', '-z', '--', '*.ts', '*.md', '*.yaml', '*.go', '*.json', '*.sh'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    )
      .split('\0')
      .filter(Boolean);
    expect(files.length).to.be.greaterThan(500);
    expect(filesWithMarkers(files, (f) => readFileSync(join(ROOT, f), 'utf8'))).to.deep.equal([]);
  });

  it('detects a marker (the check can fail)', () => {
    const text = (f: string) => (f === 'a' ? 'x\n<<<<<<< HEAD\ny\n=======\nz\n>>>>>>> other\n' : 'plain\n');
    expect(filesWithMarkers(['a', 'b'], text)).to.deep.equal(['a']);
  });
});
