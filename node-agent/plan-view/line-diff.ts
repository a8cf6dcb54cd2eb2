/**
 * The shortest edit script between two lists of lines (Myers, "An O(ND) Difference Algorithm",
 * 1986): what `diff` and `git diff` compute. Past `maxEdits` differences (files that share almost
 * nothing) it gives up finding the shortest and replaces everything, which is still a correct
 * script and keeps time and memory bounded.
 */
export type LineOp = { readonly op: ' ' | '-' | '+'; readonly line: string };

export function lineDiff(a: readonly string[], b: readonly string[], maxEdits = 2000): LineOp[] {
  // Common head and tail are cheap to find and common in config files.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const keep = (lines: readonly string[]): LineOp[] => lines.map((line) => ({ op: ' ', line }));
  return [...keep(a.slice(0, head)), ...middle(midA, midB, maxEdits), ...keep(a.slice(a.length - tail))];
}

function replaceAll(a: readonly string[], b: readonly string[]): LineOp[] {
  return [...a.map((line) => ({ op: '-' as const, line })), ...b.map((line) => ({ op: '+' as const, line }))];
}

function middle(a: readonly string[], b: readonly string[], maxEdits: number): LineOp[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return replaceAll(a, b);
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, d, offset);
    }
    v = next;
  }
  return replaceAll(a, b);
}

/** Walks the saved frontiers back from the end: trace[d] is the frontier before step d. */
function backtrack(
  a: readonly string[],
  b: readonly string[],
  trace: readonly Int32Array[],
  depth: number,
  offset: number,
): LineOp[] {
  const ops: LineOp[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = depth; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ op: ' ', line: a[--x]! });
      y--;
    }
    if (down) ops.push({ op: '+', line: b[--y]! });
    else ops.push({ op: '-', line: a[--x]! });
  }
  while (x > 0 && y > 0) {
    ops.push({ op: ' ', line: a[--x]! });
    y--;
  }
  return ops.reverse();
}
