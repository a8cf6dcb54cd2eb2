/**
 * The token-labels decisions (pure): which shoot secrets the seed's shoot-access secrets target
 * (validated annotations, problems named), and what a target secret needs: the label
 * `gardener.cloud/role=access-token` (merge patch with the resourceVersion it was decided on),
 * nothing, or a report when someone else set another role.
 */
import * as z from 'zod';
import type { SecretObject } from '../../api/index.js';
import { ANNOTATION, LABEL, LABEL_VALUE } from '../../api/index.js';

/** A secret in the shoot that receives an access token. */
export interface TargetSecret {
  readonly namespace: string;
  readonly name: string;
}

export const targetKey = (t: TargetSecret): string => `${t.namespace}/${t.name}`;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The target annotations: a Secret name (DNS subdomain) and a namespace (DNS label). */
const TargetAnnotations = z.object({
  [ANNOTATION.targetSecretName]: z
    .string({ error: 'is missing' })
    .max(253, 'is longer than 253 characters')
    .regex(DNS_SUBDOMAIN, 'is not a valid Secret name (DNS-1123 subdomain)'),
  [ANNOTATION.targetSecretNamespace]: z
    .string({ error: 'is missing' })
    .max(63, 'is longer than 63 characters')
    .regex(DNS_LABEL, 'is not a valid namespace name (DNS-1123 label)'),
});

/** The fields of a seed shoot-access secret that are read (tolerant in). */
const ShootAccessSubset = z.object({
  metadata: z.object({
    name: z.string().min(1),
    deletionTimestamp: z.string().nullable().optional(),
    labels: z.record(z.string(), z.string()).nullable().optional(),
    annotations: z.record(z.string(), z.string()).nullable().optional(),
  }),
});

export interface TargetsResult {
  /** By `namespace/name`, sorted by key. */
  readonly targets: ReadonlyMap<string, TargetSecret>;
  /** Seed secrets whose target annotations are unusable, each naming the secret and annotation. */
  readonly problems: readonly string[];
}

/**
 * The shoot secrets the seed's shoot-access secrets target (class `shoot`, purpose
 * `token-requestor`; a secret without a target annotation keeps its token itself and is skipped).
 * Both annotations are required and validated, since they end up in a URL path and a field
 * selector. Secrets being deleted still count: their target keeps its token until it is rotated.
 */
export function targetsFromShootAccessSecrets(secrets: readonly unknown[]): TargetsResult {
  const targets = new Map<string, TargetSecret>();
  const problems: string[] = [];
  for (const raw of secrets) {
    const secret = ShootAccessSubset.safeParse(raw);
    if (!secret.success) continue;
    const { name, labels, annotations } = secret.data.metadata;
    if (
      labels?.[LABEL.tokenRequestorPurpose] !== LABEL_VALUE.purposeTokenRequestor ||
      labels?.[LABEL.resourceClass] !== LABEL_VALUE.classShoot
    )
      continue;
    if (annotations?.[ANNOTATION.targetSecretName] === undefined) continue;
    const parsed = TargetAnnotations.safeParse(annotations);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push(`secret ${name}: annotation ${String(issue.path[0])} ${issue.message}`);
      continue;
    }
    const target = {
      namespace: parsed.data[ANNOTATION.targetSecretNamespace],
      name: parsed.data[ANNOTATION.targetSecretName],
    };
    targets.set(targetKey(target), target);
  }
  return {
    targets: new Map([...targets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    problems: problems.sort(),
  };
}

export type { SecretObject } from '../../api/index.js';

/** The merge patch: the role label only, and the resourceVersion it was decided on. */
export interface AccessTokenLabelPatch {
  readonly metadata: {
    readonly resourceVersion?: string;
    readonly labels: { readonly [LABEL.gardenerRole]: typeof LABEL_VALUE.roleAccessToken };
  };
}

export type LabelDecision =
  | { readonly action: 'patch'; readonly body: AccessTokenLabelPatch }
  | { readonly action: 'none'; readonly why: 'labelled' | 'deleting' }
  | { readonly action: 'none'; readonly why: 'foreign-role'; readonly role: string };

export function accessTokenLabelPatch(resourceVersion: string | undefined): AccessTokenLabelPatch {
  return {
    metadata: {
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
      labels: { [LABEL.gardenerRole]: LABEL_VALUE.roleAccessToken },
    },
  };
}

/** What a target secret needs; pure. */
export function labelDecision(secret: SecretObject): LabelDecision {
  const metadata = secret.metadata ?? {};
  if (metadata.deletionTimestamp) return { action: 'none', why: 'deleting' };
  const role = metadata.labels?.[LABEL.gardenerRole];
  if (role === LABEL_VALUE.roleAccessToken) return { action: 'none', why: 'labelled' };
  if (role !== undefined && role !== '') return { action: 'none', why: 'foreign-role', role };
  return { action: 'patch', body: accessTokenLabelPatch(metadata.resourceVersion) };
}
