/**
 * When a requested token is renewed (gardener v1.91.4 pkg/controller/tokenrequestor/reconciler.go),
 * as gardener-resource-manager's token-requestor computes it: renew after 80 % of the token's
 * lifetime, the lifetime capped at 24 h, plus GRM's jitter. GRM uses `wait.Jitter(d, 0.05)`, which
 * is one-sided: `d + rand[0,1) * 0.05 * d`. We keep exactly that, so a token is renewed between 80
 * % and 84 % of min(lifetime, 24 h): a 720h token after 19.2 h to 20.16 h, a 10-minute token after
 * 8 to 8.4 minutes, never after it expired. The random source is injectable, so tests are exact.
 *
 * The lifetime comes from `serviceaccount.resources.gardener.cloud/token-expiration-duration` (a Go
 * duration, default 12h), floored at the TokenRequest API's minimum of 600 s (the API server rejects
 * shorter requests).
 */
import { formatRfc3339, NANOS_PER_SECOND, parseGoDuration, parseRfc3339 } from '../../api/index.js';

export const DEFAULT_TOKEN_EXPIRATION_SECONDS = 12 * 3600;
export const MIN_TOKEN_EXPIRATION_SECONDS = 600;
export const MAX_RENEW_BASE_MS = 24 * 3600 * 1000;
export const RENEW_FRACTION = 0.8;
export const RENEW_JITTER_FACTOR = 0.05;

/** `expirationSeconds` of the TokenRequest for the annotation's value; throws on an unparsable duration. */
export function tokenExpirationSeconds(annotation: string | undefined): number {
  if (annotation === undefined || annotation === '') return DEFAULT_TOKEN_EXPIRATION_SECONDS;
  const seconds = Math.trunc(parseGoDuration(annotation) / NANOS_PER_SECOND);
  return Math.max(MIN_TOKEN_EXPIRATION_SECONDS, seconds);
}

/** Milliseconds from issuing to renewing a token that is valid for `lifetimeMs`. */
export function renewAfterMs(lifetimeMs: number, random: () => number = Math.random): number {
  const base = Math.min(Math.max(0, lifetimeMs), MAX_RENEW_BASE_MS) * RENEW_FRACTION;
  return Math.floor(base + random() * RENEW_JITTER_FACTOR * base);
}

export interface RenewTime {
  /** Epoch milliseconds, truncated to whole seconds as the annotation holds it. */
  readonly at: number;
  /** The annotation value (RFC3339, whole seconds, UTC). */
  readonly annotation: string;
}

/** The renew time of a token issued at `now` that expires at `expiresAt` (epoch ms). */
export function renewTime(now: number, expiresAt: number, random: () => number = Math.random): RenewTime {
  const at = Math.floor((now + renewAfterMs(expiresAt - now, random)) / 1000) * 1000;
  return { at, annotation: formatRfc3339(new Date(at)) };
}

export type RenewDue =
  | { readonly due: true; readonly reason: 'missing' | 'passed' | 'unparsable' }
  | { readonly due: false; readonly inMs: number; readonly at: number };

/**
 * Whether the token must be renewed now: no or an unparsable renew timestamp (GRM fails the
 * reconcile on an unparsable one; renewing overwrites it, which heals it), or one that has passed.
 */
export function renewDue(annotation: string | undefined, now: number): RenewDue {
  if (!annotation) return { due: true, reason: 'missing' };
  let at: number;
  try {
    const t = parseRfc3339(annotation);
    at = t.epochSeconds * 1000 + Math.floor(t.nanos / 1e6);
  } catch {
    return { due: true, reason: 'unparsable' };
  }
  return at <= now ? { due: true, reason: 'passed' } : { due: false, inMs: at - now, at };
}
