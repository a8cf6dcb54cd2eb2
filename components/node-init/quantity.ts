/**
 * Kubernetes resource quantities (`1337Ki`, `50Gi`, `100G`, `1e3`) as whole numbers, the way
 * resource.Quantity.AsInt64 reads them: fractions or values beyond int64 are not whole numbers.
 */
const SUFFIX: Record<string, bigint> = {
  '': 1n,
  k: 1000n,
  M: 1000n ** 2n,
  G: 1000n ** 3n,
  T: 1000n ** 4n,
  P: 1000n ** 5n,
  E: 1000n ** 6n,
  Ki: 1024n,
  Mi: 1024n ** 2n,
  Gi: 1024n ** 3n,
  Ti: 1024n ** 4n,
  Pi: 1024n ** 5n,
  Ei: 1024n ** 6n,
};

const QUANTITY = /^([+-]?)([0-9]+)(?:\.([0-9]*))?(?:([eE][+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m|))$/;

export class QuantityError extends Error {}

/** The quantity as an int64 number, or undefined when it is not a whole number in range. */
export function quantityAsInt64(text: string): number | undefined {
  const m = QUANTITY.exec(text.trim());
  if (!m)
    throw new QuantityError(
      `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  const [, sign = '', whole = '0', frac = '', exponent, suffix = ''] = m;
  let numerator = BigInt(whole + frac);
  let denominator = 10n ** BigInt(frac.length);
  if (exponent) {
    const e = Number(exponent.slice(1));
    if (e >= 0) numerator *= 10n ** BigInt(e);
    else denominator *= 10n ** BigInt(-e);
  } else if (suffix === 'm') {
    denominator *= 1000n;
  } else {
    numerator *= SUFFIX[suffix]!;
  }
  if (numerator % denominator !== 0n) return undefined;
  const value = (sign === '-' ? -1n : 1n) * (numerator / denominator);
  if (value > 2n ** 63n - 1n || value < -(2n ** 63n)) return undefined;
  return Number(value);
}
