/**
 * When a service-account token expires: the `exp` claim of its JWT payload. Nothing is verified,
 * the agent only wants to warn before its credentials run out; an opaque token has no expiry.
 */
export function jwtExpirySeconds(token: string | Buffer): number | undefined {
  const parts = token.toString().trim().split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    const exp = (payload as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined;
  } catch {
    return undefined;
  }
}
