/**
 * Go's time.Duration text form, which every duration in the contract uses (`5m0s`, `12h0m0s`,
 * `1m30s`, `4.333333333s`). Values are integer nanoseconds.
 */
const UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3, // U+00B5 MICRO SIGN
  μs: 1e3, // U+03BC GREEK SMALL LETTER MU
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Durations are integer nanoseconds. */
export const NANOS_PER_SECOND = 1e9;
export const NANOS_PER_MILLISECOND = 1e6;

export class DurationSyntaxError extends Error {
  constructor(text: string, reason: string) {
    super(`time: invalid duration "${text}": ${reason}`);
    this.name = 'DurationSyntaxError';
  }
}

/** time.ParseDuration: `[-+]?([0-9]*(\.[0-9]*)?[a-zµμ]+)+`, or a bare `0`. */
export function parseGoDuration(text: string): number {
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw new DurationSyntaxError(text, 'empty');
  let total = 0;
  const component = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]+)/;
  while (s !== '') {
    const m = component.exec(s);
    if (!m) throw new DurationSyntaxError(text, 'expected a number followed by a unit');
    const [whole, intPart = '', fracPart, unitText = ''] = m;
    if (intPart === '' && (fracPart === undefined || fracPart === '')) {
      throw new DurationSyntaxError(text, 'missing number');
    }
    const unit = UNITS[unitText];
    if (unit === undefined) throw new DurationSyntaxError(text, `unknown unit "${unitText}"`);
    let value = Number(intPart || '0') * unit;
    if (fracPart) value += Math.trunc(Number(fracPart) * (unit / 10 ** fracPart.length));
    total += value;
    if (!Number.isSafeInteger(total)) throw new DurationSyntaxError(text, 'overflow');
    s = s.slice(whole.length);
  }
  return negative ? -total : total;
}

function fraction(value: number, precision: number): { digits: string; rest: number } {
  let digits = '';
  let rest = value;
  let print = false;
  for (let i = 0; i < precision; i++) {
    const digit = rest % 10;
    print ||= digit !== 0;
    if (print) digits = String(digit) + digits;
    rest = Math.floor(rest / 10);
  }
  return { digits: digits ? `.${digits}` : '', rest };
}

/** time.Duration.String(). */
export function formatGoDuration(nanos: number): string {
  if (!Number.isSafeInteger(nanos)) throw new RangeError(`duration ${nanos}ns is not a safe integer`);
  const sign = nanos < 0 ? '-' : '';
  const u = Math.abs(nanos);
  if (u === 0) return '0s';
  if (u < NANOS_PER_SECOND) {
    if (u < 1e3) return `${sign}${u}ns`;
    const [precision, unit] = u < 1e6 ? [3, 'µs'] : [6, 'ms'];
    const f = fraction(u, precision);
    return `${sign}${f.rest}${f.digits}${unit}`;
  }
  const f = fraction(u, 9);
  const seconds = f.rest % 60;
  const minutesTotal = Math.floor(f.rest / 60);
  let out = `${seconds}${f.digits}s`;
  if (minutesTotal > 0) {
    out = `${minutesTotal % 60}m${out}`;
    const hours = Math.floor(minutesTotal / 60);
    if (hours > 0) out = `${hours}h${out}`;
  }
  return sign + out;
}

export function seconds(n: number): number {
  return n * NANOS_PER_SECOND;
}
