/**
 * Whether go-yaml v2 would read a plain (unquoted) scalar as something other than a string. Such
 * strings must be written double-quoted (`"0"`, `"true"`, `"2024-01-01"`, `"1:20"`), exactly as
 * go-yaml's `resolve` and `isBase60Float` decide, so that our YAML equals gardenlet's byte for byte.
 */
// biome-ignore format: one YAML 1.1 value family per line is easier to check against go-yaml
const MAP_VALUES = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
]);

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
// Go's strconv.ParseFloat on text starting with '.': underscores allowed between digits.
const DOT_FLOAT = /^\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?$/;

function hint(first: string | undefined): 'S' | 'D' | 'M' | '.' | undefined {
  if (first === undefined) return 'M';
  if (first === '+' || first === '-') return 'S';
  if (first >= '0' && first <= '9') return 'D';
  if ('yYnNtTfFoO~'.includes(first)) return 'M';
  if (first === '.') return '.';
  return undefined;
}

/** Go's strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64) success (underscores already removed). */
function parsesAsGoInt(s: string): boolean {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return false;
  const body = m[2]!;
  let value: bigint;
  if (/^0[oO]/.test(body)) value = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) value = BigInt(`0o${body.slice(1)}`);
  else value = BigInt(body);
  if (m[1] === '-') return value <= 2n ** 63n;
  if (m[1] === '+') return value < 2n ** 63n;
  return value < 2n ** 64n;
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return day <= (leap ? 29 : 28);
  }
  return day <= DAYS_IN_MONTH[month - 1]!;
}

function validTime(h: string, m: string, s: string): boolean {
  return Number(h) < 24 && Number(m) < 60 && Number(s) < 60;
}

/** go-yaml's parseTimestamp: the four layouts it accepts through Go's time.Parse. */
export function isGoYamlTimestamp(s: string): boolean {
  const date = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})/.exec(s);
  if (!date) return false;
  if (!validDate(Number(date[1]), Number(date[2]), Number(date[3]))) return false;
  const rest = s.slice(date[0].length);
  if (rest === '') return true;
  const withZone =
    /^[Tt]([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(\.[0-9]+)?(Z|[+-]([0-9]{2}):([0-9]{2}))$/.exec(rest);
  if (withZone) {
    if (withZone[6] !== undefined && (Number(withZone[6]) > 23 || Number(withZone[7]) > 59)) return false;
    return validTime(withZone[1]!, withZone[2]!, withZone[3]!);
  }
  const spaced = /^ ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(\.[0-9]+)?$/.exec(rest);
  return spaced !== null && validTime(spaced[1]!, spaced[2]!, spaced[3]!);
}

export function resolvesToNonString(s: string): boolean {
  const h = hint(s[0]);
  if (h === undefined) return false;
  if (MAP_VALUES.has(s)) return true;
  switch (h) {
    case 'M':
      return false;
    case '.':
      return DOT_FLOAT.test(s);
    default: {
      if (isGoYamlTimestamp(s)) return true;
      const plain = s.replaceAll('_', '');
      if (parsesAsGoInt(plain)) return true;
      if (YAML_STYLE_FLOAT.test(plain)) return true;
      if (/^-?0b[01]+$/.test(plain)) return true;
      return false;
    }
  }
}

/** go-yaml v2 quotes these on the way out for compatibility with YAML 1.1 readers. */
export function isBase60Float(s: string): boolean {
  return s !== '' && BASE60_FLOAT.test(s);
}

export type PlainScalarValue = null | boolean | number | string;

const TRUE_VALUES = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const FALSE_VALUES = new Set(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
const NULL_VALUES = new Set(['', '~', 'null', 'Null', 'NULL']);

function goInt(plain: string): number | undefined {
  if (!parsesAsGoInt(plain) && !/^-?0b[01]+$/.test(plain)) return undefined;
  const negative = plain.startsWith('-');
  let body = plain.replace(/^[+-]/, '');
  if (/^0[0-7]+$/.test(body)) body = `0o${body.slice(1)}`;
  if (/^0[oO]/.test(body)) body = `0o${body.slice(2)}`;
  const value = BigInt(body);
  return Number(negative ? -value : value);
}

/** What go-yaml v2 reads an unquoted scalar as (its `resolve`), so we read YAML as Go does. */
export function resolvePlainScalar(s: string): PlainScalarValue {
  if (TRUE_VALUES.has(s)) return true;
  if (FALSE_VALUES.has(s)) return false;
  if (NULL_VALUES.has(s)) return null;
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s))
    return s.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (/^\.(nan|NaN|NAN)$/.test(s)) return Number.NaN;
  const h = hint(s[0]);
  if (h === '.') return DOT_FLOAT.test(s) ? Number(s.replaceAll('_', '')) : s;
  if (h !== 'S' && h !== 'D') return s;
  if (isGoYamlTimestamp(s)) return s;
  const plain = s.replaceAll('_', '');
  const int = goInt(plain);
  if (int !== undefined) return int;
  if (YAML_STYLE_FLOAT.test(plain)) return Number(plain);
  return s;
}
