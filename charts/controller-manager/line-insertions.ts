/**
 * The lines one text adds to another, in order, for a chart template whose optional parts
 * (helm-chart.ts: the node agent authorizer) are rendered once with and once without them.
 */
export interface Run {
  readonly text: string;
  /** True: lines only `extended` has. */
  readonly inserted: boolean;
}

const lines = (text: string) => text.split(/(?<=\n)/);

/**
 * `extended` as runs of lines shared with `base` and lines it inserts (a longest common
 * subsequence); throws when `extended` lacks a line of `base` (a change, not an insertion).
 */
export function insertedRuns(base: string, extended: string): Run[] {
  const a = lines(base);
  const b = lines(extended);
  // common[i][j]: the longest common subsequence of a[i..] and b[j..]
  const common = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      common[i]![j] =
        a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  if (common[0]![0] !== a.length)
    throw new Error('helm chart: the optional part changes a line, not only adds');
  const runs: Run[] = [];
  const push = (text: string, inserted: boolean) => {
    const last = runs.at(-1);
    if (last && last.inserted === inserted) runs[runs.length - 1] = { text: last.text + text, inserted };
    else runs.push({ text, inserted });
  };
  let i = 0;
  for (let j = 0; j < b.length; j++) {
    if (i < a.length && a[i] === b[j] && common[i]![j] === common[i + 1]![j + 1]! + 1) {
      push(b[j]!, false);
      i++;
    } else push(b[j]!, true);
  }
  return runs;
}
