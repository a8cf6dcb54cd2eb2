/**
 * Go's `resource.Quantity.String()`: the canonical form of a parsed quantity, as `%s` prints it
 * inside gardenlet v1.150's OSC key (k8s.io/apimachinery v0.36.4 pkg/api/resource/quantity.go:
 * ParseQuantity, CanonicalizeBytes, AsCanonicalBytes, AsCanonicalBase1024Bytes). `1024Mi` prints
 * `1Gi`, `1.5Gi` prints `1536Mi`, `0.5` prints `500m`, `1000` prints `1k`; a nil quantity `<nil>`.
 * Values beyond int64 (which Go caps or prints with other exponents) are not modelled.
 */

const DECIMAL_SUFFIX: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIX).map(([s, e]) => [e, s]));
const BINARY_BY_EXPONENT = new Map(Object.entries(BINARY_SUFFIX).map(([s, e]) => [e, s]));

const QUANTITY =
  /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|))$/;

export class GoQuantityError extends Error {}

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** An exact value `numerator / 10^scale` (scale ≥ 0) and the format its suffix asks for. */
interface Parsed {
  readonly numerator: bigint;
  readonly scale: number;
  readonly format: Format;
}

function parse(text: string): Parsed {
  const m = QUANTITY.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === ''))
    throw new GoQuantityError(
      `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  const [, sign = '', whole = '', frac = '', exponent, suffix = ''] = m;
  let numerator = BigInt(`${whole || '0'}${frac}`) * (sign === '-' ? -1n : 1n);
  let scale = frac.length;
  let format: Format;
  let power10 = 0;
  if (exponent !== undefined) {
    format = 'DecimalExponent';
    power10 = Number(exponent.slice(1));
  } else if (suffix in BINARY_SUFFIX) {
    format = 'BinarySI';
    numerator *= 2n ** BigInt(BINARY_SUFFIX[suffix]!);
  } else {
    format = 'DecimalSI';
    power10 = DECIMAL_SUFFIX[suffix]!;
  }
  if (power10 >= 0) numerator *= 10n ** BigInt(power10);
  else scale -= power10;
  // ParseQuantity rounds anything finer than nano up (away from zero), so a request is never zero
  if (scale > 9) {
    const divisor = 10n ** BigInt(scale - 9);
    const q = numerator / divisor;
    numerator = numerator % divisor === 0n ? q : q + (numerator > 0n ? 1n : -1n);
    scale = 9;
  }
  return { numerator, scale, format };
}

/** value = mantissa × 10^exponent with the exponent a multiple of 3 (AsCanonicalBytes). */
function canonicalDecimal(numerator: bigint, scale: number): { mantissa: bigint; exponent: number } {
  let mantissa = numerator;
  let exponent = -scale;
  while (mantissa !== 0n && mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent += 1;
  }
  const rest = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(rest);
  exponent -= rest;
  return { mantissa, exponent };
}

/**
 * ParseQuantity's fast path keeps the text as given when it deems it canonical already (so `+1Gi`
 * and `5.` print as written): small values without a finer scale than nano, whose digits do not
 * end in `000` (decimal, scale a multiple of 3) or are not a multiple of 8 (binary, whole suffix).
 */
function keptAsGiven(text: string): boolean {
  const m = QUANTITY.exec(text);
  if (!m) return false;
  const [, , whole = '', denom = '', exponent, suffix = ''] = m;
  const num = whole.replace(/^0+/, '') || '0';
  const shifted = num + denom;
  if (suffix in BINARY_SUFFIX) {
    const power2 = BINARY_SUFFIX[suffix]!;
    if (denom.length > 0) return false;
    const precision = 15 - num.length - Math.trunc((power2 * 3) / 10) - 1;
    if (precision < 0) return false;
    const value = BigInt(shifted);
    if (value * 2n ** BigInt(power2) > 2n ** 63n - 1n) return false;
    return power2 % 10 === 0 && (value & 7n) !== 0n;
  }
  const power10 = exponent !== undefined ? Number(exponent.slice(1)) : DECIMAL_SUFFIX[suffix]!;
  if (18 - shifted.length < 0) return false;
  const scale = power10 - denom.length;
  if (scale < -9) return false;
  if (BigInt(shifted) > 2n ** 63n - 1n) return false;
  return scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

export function goQuantityString(text: string | undefined): string {
  if (text === undefined) return '<nil>';
  const trimmed = text.trim();
  // ParseQuantity keeps a literal "0" as it was given
  if (trimmed === '0') return '0';
  const { numerator, scale, format } = parse(trimmed);
  if (keptAsGiven(trimmed)) return trimmed;
  if (numerator === 0n) return '0';
  let effective = format;
  if (format === 'BinarySI') {
    const small = numerator > -1024n * 10n ** BigInt(scale) && numerator < 1024n * 10n ** BigInt(scale);
    const whole = numerator % 10n ** BigInt(scale) === 0n;
    if (small || !whole) effective = 'DecimalSI';
  }
  if (effective === 'BinarySI') {
    let mantissa = numerator / 10n ** BigInt(scale);
    let exponent = 0;
    while (exponent < 60 && mantissa % 1024n === 0n) {
      mantissa /= 1024n;
      exponent += 10;
    }
    return `${mantissa}${BINARY_BY_EXPONENT.get(exponent) ?? ''}`;
  }
  const { mantissa, exponent } = canonicalDecimal(numerator, scale);
  if (effective === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  const suffix = DECIMAL_BY_EXPONENT.get(exponent);
  return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
}
