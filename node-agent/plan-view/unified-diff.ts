/**
 * A unified diff (`diff -u`, `git diff`) of two texts: `--- a/<path>` / `+++ b/<path>` headers
 * (`/dev/null` for an added or removed file), hunks with three lines of context, and
 * `\ No newline at end of file` where a text does not end with one, so the diff says exactly what
 * changes in the bytes.
 */
import { type LineOp, lineDiff } from './line-diff.js';

const NO_NEWLINE = '\\ No newline at end of file';

interface Line extends LineOp {
  /** The last line of a text without a final newline. */
  readonly unterminated: boolean;
}

function splitLines(text: string): { lines: string[]; unterminated: boolean } {
  if (text === '') return { lines: [], unterminated: false };
  const unterminated = !text.endsWith('\n');
  const lines = (unterminated ? text : text.slice(0, -1)).split('\n');
  return { lines, unterminated };
}

function annotate(ops: readonly LineOp[], oldLast: boolean, newLast: boolean, counts: [number, number]) {
  const [oldCount, newCount] = counts;
  let i = 0;
  let j = 0;
  return ops.map((o): Line => {
    const inOld = o.op !== '+';
    const inNew = o.op !== '-';
    if (inOld) i++;
    if (inNew) j++;
    const lastOld = inOld && i === oldCount && oldLast;
    const lastNew = inNew && j === newCount && newLast;
    // A context line that ends one text but not the other is a change in bytes: show it as one.
    return { ...o, unterminated: lastOld || lastNew };
  });
}

function range(start: number, count: number): string {
  return count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`;
}

export function unifiedDiff(
  path: string,
  before: string | undefined,
  after: string | undefined,
  context = 3,
): string {
  const a = splitLines(before ?? '');
  const b = splitLines(after ?? '');
  let ops = lineDiff(a.lines, b.lines);
  if (a.unterminated !== b.unterminated && a.lines.length > 0 && b.lines.length > 0) {
    // The last lines are equal but one lacks its newline: diff treats them as different lines.
    const last = ops.length - 1;
    if (ops[last]?.op === ' ') {
      const line = ops[last]!.line;
      ops = [...ops.slice(0, last), { op: '-', line }, { op: '+', line }];
    }
  }
  if (ops.every((o) => o.op === ' ')) return '';
  const lines = annotate(ops, a.unterminated, b.unterminated, [a.lines.length, b.lines.length]);
  const name = path.replace(/^\//, '');
  const out = [
    `--- ${before === undefined ? '/dev/null' : `a/${name}`}`,
    `+++ ${after === undefined ? '/dev/null' : `b/${name}`}`,
  ];
  const changed = lines.map((l, i) => (l.op === ' ' ? -1 : i)).filter((i) => i >= 0);
  let index = 0;
  while (index < changed.length) {
    const first = changed[index]!;
    let last = first;
    while (index + 1 < changed.length && changed[index + 1]! - last <= 2 * context) last = changed[++index]!;
    index++;
    const start = Math.max(0, first - context);
    const end = Math.min(lines.length, last + context + 1);
    const before = lines.slice(0, start);
    const oldStart = before.filter((l) => l.op !== '+').length + 1;
    const newStart = before.filter((l) => l.op !== '-').length + 1;
    const hunk = lines.slice(start, end);
    const oldCount = hunk.filter((l) => l.op !== '+').length;
    const newCount = hunk.filter((l) => l.op !== '-').length;
    out.push(`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`);
    for (const l of hunk) {
      out.push(`${l.op}${l.line}`);
      if (l.unterminated) out.push(NO_NEWLINE);
    }
  }
  return `${out.join('\n')}\n`;
}
