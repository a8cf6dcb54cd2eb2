/** Timestamps as Go writes them (RFC3339Nano, UTC, fraction trimmed of trailing zeros). */

/** A point in time with nanosecond precision: what Go's time.Time holds and Date cannot. */
export interface Instant {
  readonly epochSeconds: number;
  readonly nanos: number;
}

const RFC3339 =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?([Zz]|[+-][0-9]{2}:[0-9]{2})$/;

export class TimestampSyntaxError extends Error {
  constructor(text: string) {
    super(`invalid RFC3339 timestamp "${text}"`);
    this.name = 'TimestampSyntaxError';
  }
}

export function parseRfc3339(text: string): Instant {
  const m = RFC3339.exec(text);
  if (!m) throw new TimestampSyntaxError(text);
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  const local = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(local);
  if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1)
    throw new TimestampSyntaxError(text);
  let offsetSeconds = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    offsetSeconds = sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  return { epochSeconds: local / 1000 - offsetSeconds, nanos: Number(frac.padEnd(9, '0')) };
}

export function instantFromDate(date: Date): Instant {
  const ms = date.getTime();
  const epochSeconds = Math.floor(ms / 1000);
  return { epochSeconds, nanos: (ms - epochSeconds * 1000) * 1e6 };
}

export function formatRfc3339Nano(t: Instant | Date): string {
  const instant = t instanceof Date ? instantFromDate(t) : t;
  const base = new Date(instant.epochSeconds * 1000).toISOString().slice(0, 19);
  const frac = instant.nanos === 0 ? '' : `.${String(instant.nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${base}${frac}Z`;
}

/** RFC3339 with whole seconds, as Go's time.RFC3339 writes (e.g. token renew timestamps). */
export function formatRfc3339(t: Instant | Date): string {
  const instant = t instanceof Date ? instantFromDate(t) : t;
  return `${new Date(instant.epochSeconds * 1000).toISOString().slice(0, 19)}Z`;
}

/** metav1.MicroTime (Lease renew and acquire times): RFC 3339 with exactly six fractional digits, UTC. */
export function formatMicroTime(t: Date): string {
  return t.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
