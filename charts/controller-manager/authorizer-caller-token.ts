/**
 * How a shoot's kube-apiserver proves to the node agent authorizer that it is that shoot's: a
 * bearer token in the webhook kubeconfig (`users[].user.token`, which the API server's webhook
 * client sends as `Authorization: Bearer`), derived from a key only the controller-manager and
 * whoever renders the kubeconfig hold: HMAC-SHA256(key, "<purpose>/<shoot namespace>"). One token
 * per shoot, so a shoot's API server (or anyone holding its kubeconfig) can ask only about its own
 * shoot; nothing to store per shoot; rotating the key (`nodeAgent.authorizer.tokenKeyFile`)
 * invalidates every token at once. Without the token the authorizer answers 401, which the API
 * server's `failurePolicy: Deny` turns into a denial (docs/security.md).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const PURPOSE = 'gardener-osc/node-agent-authorizer/caller';

/** The shortest key accepted (in characters, after trimming): 32, the HMAC's own strength. */
export const MIN_TOKEN_KEY_LENGTH = 32;

/** The key in a key file's text (surrounding whitespace, a trailing newline, does not count). */
export function readTokenKey(text: string, field: string): Buffer {
  const key = text.trim();
  if (key.length < MIN_TOKEN_KEY_LENGTH)
    throw new Error(
      `${field}: the authorizer's token key must hold at least ${MIN_TOKEN_KEY_LENGTH} characters (e.g. \`openssl rand -base64 48\`), it holds ${key.length}`,
    );
  return Buffer.from(key, 'utf8');
}

/** The bearer token of one shoot's kube-apiserver. */
export function authorizerCallerToken(key: Buffer, shootNamespace: string): string {
  return createHmac('sha256', key).update(`${PURPOSE}/${shootNamespace}`).digest('base64url');
}

/** Whether an `Authorization` header carries this shoot's token (compared in constant time). */
export function isAuthorizerCaller(
  authorization: string | undefined,
  key: Buffer,
  shootNamespace: string,
): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!, 'utf8');
  const expected = Buffer.from(authorizerCallerToken(key, shootNamespace), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
