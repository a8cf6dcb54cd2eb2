/**
 * The OSC secret (`kube-system/gardener-node-agent-<pool>-<hash>`), the one object both halves of
 * the pipeline agree on: gardenlet writes `osc.yaml` and its checksum, every node agent of the pool
 * reads them. How an update is told apart from a no-op lives here too (N-TV-03).
 */
import { decodeOperatingSystemConfig } from '../decode.js';
import type { OperatingSystemConfig } from '../schema/operating-system-config.js';
import { type FieldError, formatFieldErrors } from '../validation/field-error.js';
import { ANNOTATION } from '../well-known/annotations.js';
import { DATA_KEY } from '../well-known/names.js';
import { goDocumentText } from '../yaml/go-document-text.js';

export interface SecretLike {
  kind?: string;
  metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

function isSecretLike(o: unknown): o is SecretLike {
  if (o === null || typeof o !== 'object') return false;
  const { kind, metadata } = o as SecretLike;
  return (kind === undefined || kind === 'Secret') && metadata !== null && typeof metadata === 'object';
}

/** An update event matters only when the bytes of `osc.yaml` changed; annotation-only changes do not. */
export function oscSecretUpdateChangesOsc(previous: unknown, next: unknown): boolean {
  if (!isSecretLike(previous) || !isSecretLike(next)) return false;
  return previous.data?.[DATA_KEY.osc] !== next.data?.[DATA_KEY.osc];
}

export interface OscSecretContent {
  /** The exact `osc.yaml` bytes (as text), persisted as last-applied. */
  readonly raw: string;
  /** `checksum/data-script` of the secret; undefined when missing (which never counts as up to date). */
  readonly checksum: string | undefined;
  readonly osc: OperatingSystemConfig;
}

export class OscSecretError extends Error {
  constructor(
    message: string,
    readonly errors: readonly FieldError[] = [],
  ) {
    super(errors.length > 0 ? `${message}:\n${formatFieldErrors(errors)}` : message);
    this.name = 'OscSecretError';
  }
}

export function readOscSecret(secret: SecretLike): OscSecretContent {
  const encoded = secret.data?.[DATA_KEY.osc];
  if (encoded === undefined) throw new OscSecretError(`no ${DATA_KEY.osc} key found in OSC secret`);
  // As upstream's agent: YAML must be UTF-8, JSON gets U+FFFD for invalid bytes.
  const text = goDocumentText(Buffer.from(encoded, 'base64'));
  if (!text.ok)
    throw new OscSecretError(`unable to decode OSC from secret data key ${DATA_KEY.osc}: ${text.error}`);
  const raw = text.text;
  const decoded = decodeOperatingSystemConfig(raw);
  if (!decoded.ok) throw new OscSecretError(`invalid ${DATA_KEY.osc} in OSC secret`, decoded.errors);
  return { raw, checksum: secret.metadata?.annotations?.[ANNOTATION.checksumDataScript], osc: decoded.value };
}
