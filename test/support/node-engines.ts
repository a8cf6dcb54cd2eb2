/**
 * Whether an `engines.node` range, as npm writes them (https://docs.npmjs.com/cli/v11/configuring-npm/package-json#engines,
 * node-semver's range grammar), admits a Node version: `||` alternatives of space-separated
 * comparators (`>=`, `>`, `<=`, `<`, `=`), caret and tilde ranges, partial versions (`20` is
 * 20.x) and `*`. Hyphen ranges and prereleases are rejected as unsupported rather than guessed.
 */
type Triple = readonly [number, number, number];

function parseVersion(text: string): Triple {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (!m) throw new Error(`not a Node version: "${text}"`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

function compare(a: Triple, b: Triple): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** A partial version: its given parts (x, X and * end it). */
function parsePartial(text: string): number[] {
  const parts = text.replace(/^v/, '').split('.');
  const numbers: number[] = [];
  for (const part of parts) {
    if (part === 'x' || part === 'X' || part === '*') break;
    if (!/^\d+$/.test(part)) throw new Error(`unsupported version "${text}" in an engines range`);
    numbers.push(Number(part));
  }
  return numbers;
}

const lowest = (p: number[]): Triple => [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0];

/** The first version past a partial version's span: `20` → 21.0.0, `20.1` → 20.2.0. */
function pastSpan(p: number[]): Triple {
  if (p.length === 0) return [Number.POSITIVE_INFINITY, 0, 0];
  if (p.length === 1) return [p[0]! + 1, 0, 0];
  if (p.length === 2) return [p[0]!, p[1]! + 1, 0];
  return [p[0]!, p[1]!, p[2]! + 1];
}

function satisfiesComparator(comparator: string, v: Triple): boolean {
  const m = /^(\^|~|>=|<=|>|<|=)?\s*(.*)$/.exec(comparator)!;
  const op = m[1] ?? '';
  const p = parsePartial(m[2]!);
  const low = lowest(p);
  switch (op) {
    case '>=':
      return compare(v, low) >= 0;
    case '>':
      return compare(v, pastSpan(p)) >= 0;
    case '<':
      return compare(v, low) < 0;
    case '<=':
      return compare(v, pastSpan(p)) < 0;
    case '~':
      return compare(v, low) >= 0 && compare(v, pastSpan(p.slice(0, 2))) < 0;
    case '^': {
      const firstNonZero = p.findIndex((n) => n !== 0);
      const span = firstNonZero === -1 ? p : p.slice(0, firstNonZero + 1);
      return compare(v, low) >= 0 && compare(v, pastSpan(span)) < 0;
    }
    default:
      return compare(v, low) >= 0 && compare(v, pastSpan(p)) < 0;
  }
}

export function admitsNodeVersion(range: string, version: string): boolean {
  const v = parseVersion(version);
  return range.split('||').some((alternative) => {
    const text = alternative.trim().replace(/(\^|~|>=|<=|>|<|=)\s+/g, '$1');
    if (/\s-\s/.test(text) || /-/.test(text)) throw new Error(`unsupported engines range "${range}"`);
    if (text === '' || text === '*') return true;
    return text.split(/\s+/).every((c) => satisfiesComparator(c, v));
  });
}
