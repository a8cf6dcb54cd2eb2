/**
 * A unified diff (`diff -u`, `git diff`) of two texts: `--- a/<path>` / `+++ b/<path>` headers
 * (`/dev/null` for an added or removed file), hunks with three lines of context, and
 * `\ No newline at end of file` where a text does not end with one, so the diff says exactly what
 * changes in the bytes.
 */
import { type LineOp, lineDiff } from './line-diff.js';

const NO_NEWLINE = '\\ No newline at end of file';

/**
 * Lines with their terminator, so a last line without a newline differs from the same line with
 * one (as it does in the bytes, and for GNU diff).
 */
function splitLines(text: string): string[] {
  if (text === '') return [];
  return text.split(/(?<=\n)/);
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`;
}

function hunkLines(hunk: readonly LineOp[]): string[] {
  return hunk.flatMap((l) =>
    l.line.endsWith('\n') ? [`${l.op}${l.line.slice(0, -1)}`] : [`${l.op}${l.line}`, NO_NEWLINE],
  );
}

export function unifiedDiff(
  path: string,
  before: string | undefined,
  after: string | undefined,
  context = 3,
): string {
  const ops = lineDiff(splitLines(before ?? ''), splitLines(after ?? ''));
  if (ops.every((o) => o.op === ' ')) return '';
  const name = path.replace(/^\//, '');
  const out = [
    `--- ${before === undefined ? '/dev/null' : `a/${name}`}`,
    `+++ ${after === undefined ? '/dev/null' : `b/${name}`}`,
  ];
  const changed = ops.map((l, i) => (l.op === ' ' ? -1 : i)).filter((i) => i >= 0);
  let index = 0;
  while (index < changed.length) {
    const first = changed[index]!;
    let last = first;
    while (index + 1 < changed.length && changed[index + 1]! - last <= 2 * context) last = changed[++index]!;
    index++;
    const start = Math.max(0, first - context);
    const end = Math.min(ops.length, last + context + 1);
    const preceding = ops.slice(0, start);
    const hunk = ops.slice(start, end);
    const oldStart = preceding.filter((l) => l.op !== '+').length + 1;
    const newStart = preceding.filter((l) => l.op !== '-').length + 1;
    const oldCount = hunk.filter((l) => l.op !== '+').length;
    const newCount = hunk.filter((l) => l.op !== '-').length;
    out.push(`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`, ...hunkLines(hunk));
  }
  return `${out.join('\n')}\n`;
}
