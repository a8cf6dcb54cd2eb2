/**
 * Numbers as go-yaml v2 writes them after sigs.k8s.io/yaml's JSON round trip: integral values as
 * decimal integers, everything else with Go's strconv.FormatFloat(f, 'g', -1, 64).
 */
const INT64_MIN = -(2 ** 63);
const UINT64_LIMIT = 2 ** 64;

export function formatGoFloat(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Number.POSITIVE_INFINITY) return '.inf';
  if (f === Number.NEGATIVE_INFINITY) return '-.inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // toExponential() without an argument yields the shortest digits that round-trip, like Go's -1.
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let body: string;
  if (exp < -4 || exp >= 6) {
    const frac = digits.slice(1);
    const e = Math.abs(exp).toString().padStart(2, '0');
    body = `${digits[0]}${frac ? `.${frac}` : ''}e${exp < 0 ? '-' : '+'}${e}`;
  } else if (exp < 0) {
    body = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else if (digits.length > exp + 1) {
    body = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  } else {
    body = digits + '0'.repeat(exp + 1 - digits.length);
  }
  return negative ? `-${body}` : body;
}

/**
 * A JSON number as Go writes it after encoding/json (shortest digits, never an exponent below
 * 1e21) and go-yaml reads it back (an int when it fits int64/uint64, else a float).
 */
export function formatGoNumber(n: number): string {
  if (Number.isInteger(n) && n >= INT64_MIN && n < UINT64_LIMIT) return Object.is(n, -0) ? '0' : String(n);
  return formatGoFloat(n);
}
