/**
 * go-toml v1.9.5's float text (tomltree_write.go `tomlValueStringRepresentation`): 32-bit
 * precision when the value is exactly a float32, `strconv.FormatFloat(v, 'f', 1, bits)` for
 * integral values (so `3` reads back as a float: `3.0`), the shortest round-trip digits in
 * fixed notation otherwise, lower-cased (`nan`, `+inf`, `-inf`).
 */

/** Fixed notation of a decimal in JavaScript's (possibly exponential) form. */
function toFixedNotation(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!match) throw new Error(`not a decimal: ${text}`);
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponentText);
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  out = out.replace(/^0+(?=\d)/, '');
  if (out.includes('.')) out = out.replace(/0+$/, '').replace(/\.$/, '');
  return sign + out;
}

/** The shortest decimal that reads back as the same float32. */
function shortestFloat32(value: number): string {
  for (let precision = 1; precision < 10; precision++) {
    const text = value.toPrecision(precision);
    if (Math.fround(Number(text)) === value) return text;
  }
  return value.toPrecision(9);
}

export function formatGoTomlFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Number.POSITIVE_INFINITY) return '+inf';
  if (value === Number.NEGATIVE_INFINITY) return '-inf';
  if (Math.trunc(value) === value) {
    const negativeZero = Object.is(value, -0);
    return `${negativeZero ? '-' : ''}${BigInt(value).toString()}.0`;
  }
  const float32 = Math.fround(value) === value;
  return toFixedNotation(float32 ? shortestFloat32(value) : String(value));
}
