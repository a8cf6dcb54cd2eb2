/**
 * When the agent renews its client certificate (pure): at 80–88 % of its lifetime (upstream's
 * later rule: 80 % plus up to a tenth of that as jitter, so a fleet issued at once does not renew
 * at once), waiting at most an hour between looks, so a clock jump or a suspended machine is
 * noticed.
 */

export const RENEW_AT = 0.8;
export const RENEW_JITTER = 0.1;
export const MAX_WAIT_MS = 3_600_000;

export interface Validity {
  /** Milliseconds since the epoch. */
  readonly notBefore: number;
  readonly notAfter: number;
}

/** `random` in [0, 1). */
export function renewalDeadline(v: Validity, random: number): number {
  const lifetime = Math.max(0, v.notAfter - v.notBefore);
  return v.notBefore + lifetime * RENEW_AT * (1 + RENEW_JITTER * random);
}

export type CertificateStep =
  | { readonly action: 'wait'; readonly afterMs: number }
  | { readonly action: 'renew'; readonly expired: boolean };

export function certificateStep(now: number, v: Validity, deadline: number): CertificateStep {
  if (now >= deadline) return { action: 'renew', expired: now >= v.notAfter };
  return { action: 'wait', afterMs: Math.min(deadline - now, MAX_WAIT_MS) };
}
