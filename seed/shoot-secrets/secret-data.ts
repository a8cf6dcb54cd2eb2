/**
 * Reading one data key of a secret as text, with errors that name the secret and the key. Secret
 * data arrives base64-encoded (the API's `data` field); it is decoded strictly, so corrupt data is
 * reported instead of silently turning into garbage.
 */
import type { V1Secret } from '@kubernetes/client-node';

export type TextResult = { ok: true; text: string } | { ok: false; reason: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 with padding, as the API server writes secret data. */
export function isBase64(text: string): boolean {
  return BASE64.test(text);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `<namespace>/<name>` (or just the name when the secret has no namespace), for messages. */
export function secretRef(secret: V1Secret): string {
  const name = secret.metadata?.name ?? '<unnamed>';
  const namespace = secret.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/** The decoded text of `data[key]`; missing, empty, non-base64 or non-UTF-8 values are errors. */
export function secretText(secret: V1Secret, key: string): TextResult {
  const data = secret.data ?? {};
  const encoded = Object.hasOwn(data, key) ? data[key] : undefined;
  if (encoded === undefined || encoded === null) {
    return { ok: false, reason: `secret ${secretRef(secret)} has no data key ${key}` };
  }
  if (!isBase64(encoded)) {
    return { ok: false, reason: `secret ${secretRef(secret)}: data key ${key} is not valid base64` };
  }
  let text: string;
  try {
    text = UTF8.decode(Buffer.from(encoded, 'base64'));
  } catch {
    return { ok: false, reason: `secret ${secretRef(secret)}: data key ${key} is not UTF-8 text` };
  }
  if (text.trim() === '')
    return { ok: false, reason: `secret ${secretRef(secret)}: data key ${key} is empty` };
  return { ok: true, text };
}
