/**
 * The token-labels reconciler: every access-token secret in the shoot that a seed shoot-access
 * secret targets (`kube-system/gardener-node-agent`, `kube-system/gardener-valitail`, ...) carries
 * `gardener.cloud/role=access-token`, so operators and tools find them with `kubectl -l` and agents
 * can tell an access token from other secrets. Upstream sets no such label (gardener v1.91.4
 * pkg/utils/gardener/shoot.go, docs/compatibility.md). Idempotent; only that label is ever written
 * (merge patch of labels with the resourceVersion it was decided on), never data, and a
 * `gardener.cloud/role` someone else set to another value is left alone and reported.
 */
import { LABEL, LABEL_VALUE } from '../../api/index.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventObject, EventRecorder } from '../../runtime/events.js';
import { type AccessTokenLabelPatch, labelDecision, type SecretObject, type TargetSecret } from './decide.js';
import type { TokenLabelsMetrics } from './metrics.js';

export type PatchOutcome = 'patched' | 'conflict' | 'gone';

/** Writes one Secret's merge patch; a 409 is `conflict`, a 404 `gone`, anything else throws. */
export interface SecretPatcher {
  patch(target: TargetSecret, body: AccessTokenLabelPatch): Promise<PatchOutcome>;
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
