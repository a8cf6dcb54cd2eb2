/**
 * The token-requestor's decisions (pure): what a seed secret asks for, whether a token is due, and
 * what the ServiceAccount, the target secret and the seed secret need. Direct mode's
 * token-requestor (gardener v1.91.4 pkg/controller/tokenrequestor/reconciler.go) does what
 * gardener-resource-manager does for a seed secret labelled
 * `resources.gardener.cloud/purpose=token-requestor` and `resources.gardener.cloud/class=shoot`.
 *
 * Per seed secret: while its renew timestamp lies ahead and the target secret holds a token,
 * nothing happens until then. Otherwise: ensure the ServiceAccount in the shoot
 * (`automountServiceAccountToken: false`, labels from `serviceaccount.resources.gardener.cloud/labels`),
 * request a token (`expirationSeconds` from the annotation, default 12h, at least 600 s), write it
 * as `token` into the target secret in the shoot (created Opaque without labels if missing; else only
 * `data.token` is patched, other data and labels stay), drop a `token` key from the seed secret (GRM
 * does the same when a target secret is named) and set the renew timestamp on the seed secret to
 * the issue time plus 80-84 % of min(lifetime, 24 h) (renew-timestamp.ts).
 *
 * Without a target-secret annotation the token goes into the seed secret itself, as GRM does.
 * Deleting a seed secret leaves the ServiceAccount and target secret in place (GRM does not clean
 * them up either).
 */
import type { V1Secret, V1ServiceAccount } from '@kubernetes/client-node';
import * as z from 'zod';
import { ANNOTATION, DATA_KEY } from '../../api/index.js';
import { renewDue, tokenExpirationSeconds } from './renew-timestamp.js';

export class TokenRequestorConfigError extends Error {
  constructor(secret: string, message: string) {
    super(`seed secret ${secret}: ${message}`);
    this.name = 'TokenRequestorConfigError';
  }
}

/** What a seed secret asks for, decoded from its annotations. */
export interface TokenRequestSpec {
  readonly serviceAccountName: string;
  readonly serviceAccountNamespace: string;
  readonly serviceAccountLabels: Record<string, string>;
  readonly expirationSeconds: number;
  /** Undefined: the token goes into the seed secret itself. */
  readonly target: { readonly name: string; readonly namespace: string } | undefined;
  readonly renewTimestamp: string | undefined;
}

const Labels = z.record(z.string(), z.string());

export function tokenRequestSpec(secret: V1Secret): TokenRequestSpec {
  const ref = `${secret.metadata?.namespace}/${secret.metadata?.name}`;
  const a = secret.metadata?.annotations ?? {};
  const required = (key: string) => {
    const v = a[key];
    if (!v) throw new TokenRequestorConfigError(ref, `annotation ${key} is missing`);
    return v;
  };
  const serviceAccountName = required(ANNOTATION.serviceAccountName);
  const serviceAccountNamespace = required(ANNOTATION.serviceAccountNamespace);
  let expirationSeconds: number;
  try {
    expirationSeconds = tokenExpirationSeconds(a[ANNOTATION.tokenExpirationDuration]);
  } catch (e) {
    throw new TokenRequestorConfigError(
      ref,
      `annotation ${ANNOTATION.tokenExpirationDuration}: ${(e as Error).message}`,
    );
  }
  let serviceAccountLabels: Record<string, string> = {};
  const labelsText = a[ANNOTATION.serviceAccountLabels];
  if (labelsText) {
    let raw: unknown;
    try {
      raw = JSON.parse(labelsText);
    } catch {
      raw = undefined;
    }
    const parsed = Labels.safeParse(raw);
    if (!parsed.success)
      throw new TokenRequestorConfigError(
        ref,
        `annotation ${ANNOTATION.serviceAccountLabels} must be a JSON object of strings`,
      );
    serviceAccountLabels = parsed.data;
  }
  const targetName = a[ANNOTATION.targetSecretName];
  return {
    serviceAccountName,
    serviceAccountNamespace,
    serviceAccountLabels,
    expirationSeconds,
    target: targetName
      ? { name: targetName, namespace: a[ANNOTATION.targetSecretNamespace] || serviceAccountNamespace }
      : undefined,
    renewTimestamp: a[ANNOTATION.tokenRenewTimestamp],
  };
}

/** What the reconcile of one seed secret does, decided from what it observed. */
export type TokenDecision =
  | { readonly action: 'wait'; readonly inMs: number }
  | { readonly action: 'request'; readonly reason: string };

/**
 * Whether to request a token now: when the renew timestamp is missing, unparsable or has passed,
 * or when the token it should have written is not there (the target secret lost it, say).
 */
export function tokenDecision(
  spec: TokenRequestSpec,
  currentToken: string | undefined,
  now: number,
): TokenDecision {
  const due = renewDue(spec.renewTimestamp, now);
  if (due.due) return { action: 'request', reason: `renew timestamp ${due.reason}` };
  if (!currentToken)
    return { action: 'request', reason: 'no token yet, requesting one before the renew time' };
  return { action: 'wait', inMs: due.inMs };
}

/** The ServiceAccount change: create it, patch what differs (merge patch), or nothing. */
export type ServiceAccountChange =
  | { readonly action: 'create'; readonly body: V1ServiceAccount }
  | { readonly action: 'patch'; readonly body: Record<string, unknown> }
  | { readonly action: 'none' };

export function serviceAccountChange(
  existing: V1ServiceAccount | undefined,
  spec: TokenRequestSpec,
): ServiceAccountChange {
  const { serviceAccountName: name, serviceAccountNamespace: namespace, serviceAccountLabels } = spec;
  if (!existing)
    return {
      action: 'create',
      body: {
        metadata: {
          name,
          namespace,
          ...(Object.keys(serviceAccountLabels).length ? { labels: serviceAccountLabels } : {}),
        },
        automountServiceAccountToken: false,
      },
    };
  const labels = existing.metadata?.labels ?? {};
  const missing = Object.entries(serviceAccountLabels).filter(([k, v]) => labels[k] !== v);
  if (existing.automountServiceAccountToken === false && missing.length === 0) return { action: 'none' };
  return {
    action: 'patch',
    body: {
      automountServiceAccountToken: false,
      ...(missing.length ? { metadata: { labels: Object.fromEntries(missing) } } : {}),
    },
  };
}

/** The target secret's change for a new token (base64): create it Opaque, patch `data.token` only, or nothing. */
export type TargetChange =
  | { readonly action: 'create'; readonly body: V1Secret }
  | { readonly action: 'patch'; readonly body: Record<string, unknown> }
  | { readonly action: 'none' };

export function targetChange(
  existing: V1Secret | undefined,
  target: { readonly name: string; readonly namespace: string },
  encodedToken: string,
): TargetChange {
  if (!existing)
    return {
      action: 'create',
      body: {
        metadata: { name: target.name, namespace: target.namespace },
        type: 'Opaque',
        data: { [DATA_KEY.token]: encodedToken },
      },
    };
  if (existing.data?.[DATA_KEY.token] === encodedToken) return { action: 'none' };
  return { action: 'patch', body: { data: { [DATA_KEY.token]: encodedToken } } };
}

/**
 * The seed secret's merge patch after a token was issued: the renew timestamp, and the token itself
 * without a target; with a target a `token` key left in the seed secret is removed (as GRM does).
 */
export function seedSecretPatch(
  secret: V1Secret,
  spec: TokenRequestSpec,
  renewAnnotation: string,
  encodedToken: string,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {
    metadata: { annotations: { [ANNOTATION.tokenRenewTimestamp]: renewAnnotation } },
  };
  if (!spec.target) patch.data = { [DATA_KEY.token]: encodedToken };
  else if (secret.data?.[DATA_KEY.token] !== undefined) patch.data = { [DATA_KEY.token]: null };
  return patch;
}
