/**
 * The order in which go-yaml v2 (and so sigs.k8s.io/yaml, which every Gardener component uses to
 * write YAML) sorts mapping keys. It is not byte order: runs of digits compare by value and a
 * non-letter sorts before a letter, so `a_b` < `aB` and `x9` < `x10`. Ported from go-yaml's
 * `keyList.Less` so that our bytes equal gardenlet's.
 */
const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;

function isLetter(cp: number): boolean {
  return LETTER.test(String.fromCodePoint(cp));
}

function isDigit(cp: number): boolean {
  return DIGIT.test(String.fromCodePoint(cp));
}

function codePoints(s: string): number[] {
  return Array.from(s, (c) => c.codePointAt(0)!);
}

/** Go's int64 arithmetic wraps; long digit runs must wrap the same way to sort the same way. */
function appendDigit(n: bigint, cp: number): bigint {
  return BigInt.asIntN(64, n * 10n + BigInt(cp - 48));
}

export function goYamlKeyLess(a: string, b: string): boolean {
  const ar = codePoints(a);
  const br = codePoints(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i]!;
    const bc = br[i]!;
    if (ac === bc) continue;
    const al = isLetter(ac);
    const bl = isLetter(bc);
    if (al && bl) return ac < bc;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ac === 48 || bc === 48) {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]!); j--) {
        if (ar[j] !== 48) {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]!); ai++) an = appendDigit(an, ar[ai]!);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]!); bi++) bn = appendDigit(bn, br[bi]!);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ac < bc;
  }
  return ar.length < br.length;
}

export function compareGoYamlKeys(a: string, b: string): number {
  if (goYamlKeyLess(a, b)) return -1;
  if (goYamlKeyLess(b, a)) return 1;
  return 0;
}
