/**
 * The token-labels reconciler: every access-token secret in the shoot that a seed shoot-access
 * secret targets (`kube-system/gardener-node-agent`, `kube-system/gardener-valitail`, ...) carries
 * `gardener.cloud/role=access-token`, so operators and tools find them with `kubectl -l` and agents
 * can tell an access token from other secrets. Upstream sets no such label (seed-side §8.1,
 * docs/compatibility.md). Idempotent; only that label is ever written (merge patch of labels with
 * the resourceVersion it was decided on), never data, and a `gardener.cloud/role` someone else set
 * to another value is left alone and reported.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import * as z from 'zod';
import { ANNOTATION, LABEL, LABEL_VALUE } from '../../api/index.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventObject, EventRecorder } from '../../runtime/events.js';

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

/** A Secret in the shoot as the informer holds it (plain JSON). */
export interface SecretObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly deletionTimestamp?: string | null;
    readonly labels?: Readonly<Record<string, string>> | null;
  };
}

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

export type PatchOutcome = 'patched' | 'conflict' | 'gone';

/** Writes one Secret's merge patch; a 409 is `conflict`, a 404 `gone`, anything else throws. */
export interface SecretPatcher {
  patch(target: TargetSecret, body: AccessTokenLabelPatch): Promise<PatchOutcome>;
}

export interface TokenLabelsMetrics {
  /** Label patches, by result (patched, conflict, gone, error). */
  readonly patches: Counter<'shoot' | 'result'>;
  /** Access-token secrets the shoot-access secrets target. */
  readonly targets: Gauge<'shoot'>;
}

const metricsByRegistry = new WeakMap<Registry, TokenLabelsMetrics>();

/** The controller's metrics in `registry` (created once per registry, shared by every shoot). */
export function tokenLabelsMetrics(registry: Registry): TokenLabelsMetrics {
  const existing = metricsByRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: TokenLabelsMetrics = {
    patches: new Counter({
      name: 'gardener_osc_token_labels_patches_total',
      help: 'Patches adding gardener.cloud/role=access-token to access-token secrets, by result (patched, conflict, gone, error)',
      labelNames: ['shoot', 'result'],
      registers,
    }),
    targets: new Gauge({
      name: 'gardener_osc_token_labels_targets',
      help: 'Access-token secrets in the shoot that shoot-access secrets target',
      labelNames: ['shoot'],
      registers,
    }),
  };
  metricsByRegistry.set(registry, metrics);
  return metrics;
}

export interface TokenLabelsReconcilerOptions {
  readonly shoot: string;
  /** The target for a key, while it is one. */
  readonly target: (key: string) => TargetSecret | undefined;
  /** The target's secret in the cache, if it exists. */
  readonly secret: (key: string) => SecretObject | undefined;
  readonly patcher: SecretPatcher;
  readonly recorder?: EventRecorder;
  readonly eventObject: EventObject;
  readonly metrics?: TokenLabelsMetrics;
}

const CONFLICT_BACKOFF = { baseMs: 100, maxMs: 30_000 } as const;

export class TokenLabelsReconciler {
  private readonly conflicts = new Map<string, number>();
  private readonly reported = new Map<string, string>();

  constructor(private readonly o: TokenLabelsReconcilerOptions) {}

  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const target = this.o.target(key);
    const secret = target ? this.o.secret(key) : undefined;
    if (!target || !secret) {
      // no longer a target, or not created yet: its informer enqueues it when it appears
      this.conflicts.delete(key);
      return undefined;
    }
    const decision = labelDecision(secret);
    if (decision.action === 'none') {
      this.conflicts.delete(key);
      if (decision.why === 'foreign-role') await this.reportForeignRole(key, decision.role, ctx);
      else this.reported.delete(key);
      return undefined;
    }
    let outcome: PatchOutcome;
    try {
      outcome = await this.o.patcher.patch(target, decision.body);
    } catch (error) {
      this.o.metrics?.patches.inc({ shoot: this.o.shoot, result: 'error' });
      throw error;
    }
    this.o.metrics?.patches.inc({ shoot: this.o.shoot, result: outcome });
    if (outcome === 'conflict') {
      // the cache is behind the server: decide again once it caught up, backing off meanwhile
      const rounds = this.conflicts.get(key) ?? 0;
      this.conflicts.set(key, Math.min(rounds + 1, 30));
      return { requeueAfterMs: Math.min(CONFLICT_BACKOFF.maxMs, CONFLICT_BACKOFF.baseMs * 2 ** rounds) };
    }
    this.conflicts.delete(key);
    this.reported.delete(key);
    if (outcome === 'patched') ctx.log.info({ secret: key }, 'Labelled access-token secret');
    return undefined;
  }

  private async reportForeignRole(key: string, role: string, ctx: ReconcileContext): Promise<void> {
    if (this.reported.get(key) === role) return;
    this.reported.set(key, role);
    const message = `access-token secret ${key} has label ${LABEL.gardenerRole}=${role}; not relabelling it ${LABEL_VALUE.roleAccessToken}`;
    ctx.log.warn({ secret: key, role }, message);
    await this.o.recorder?.event(this.o.eventObject, 'Warning', 'AccessTokenRoleConflict', message);
  }
}
