/**
 * The token-requestor's reconcile of one seed secret (key `<namespace>/<name>`): observe the seed
 * secret (cache) and the token it wrote (target secret in the shoot, or the seed secret itself),
 * decide (decide.ts), and when a token is due ensure the ServiceAccount, request the token, write
 * it into the target and set the renew timestamp on the seed secret. The next reconcile is queued
 * at the renew time.
 */
import type { V1Secret, V1ServiceAccount } from '@kubernetes/client-node';
import { DATA_KEY } from '../../api/index.js';
import type { Clock } from '../../runtime/clock.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeStatusError } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import {
  seedSecretPatch,
  serviceAccountChange,
  type TokenRequestSpec,
  targetChange,
  tokenDecision,
  tokenRequestSpec,
} from './decide.js';
import type { TokenRequestorMetrics } from './metrics.js';
import { renewTime } from './renew-timestamp.js';

export const REASON_FAILED = 'TokenRequestFailed';

/** What the token-requestor does in a shoot. */
export type TokenShootApi = Pick<KubeClient, 'getIfExists' | 'create' | 'mergePatch' | 'createSubresource'>;

export interface TokenRequestorReconcilerOptions {
  /** The seed secret from the informer cache; undefined once deleted. */
  readonly seedSecret: (namespace: string, name: string) => V1Secret | undefined;
  readonly seed: Pick<KubeClient, 'mergePatch'>;
  /** The shoot behind a seed namespace; undefined: not ours (yet), skip. */
  readonly shoot: (namespace: string) => TokenShootApi | undefined;
  readonly clock: Clock;
  readonly random?: () => number;
  readonly metrics: TokenRequestorMetrics;
  readonly recorder?: EventRecorder;
}

interface TokenRequest {
  readonly status?: { readonly token?: string; readonly expirationTimestamp?: string };
}

function describe(e: unknown): string {
  if (e instanceof KubeStatusError) return `HTTP ${e.status}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

export class TokenRequestorReconciler {
  /** Seed secrets we renewed, by the resourceVersion our patch replaced (our write not yet in the cache). */
  private readonly written = new Map<string, string>();

  constructor(private readonly o: TokenRequestorReconcilerOptions) {}

  async reconcile(key: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const [namespace = '', name = ''] = key.split('/');
    const secret = this.o.seedSecret(namespace, name);
    if (!secret) {
      this.written.delete(key);
      return undefined;
    }
    // the cache still shows the secret as it was before our renewal: wait for the watch to catch up
    // instead of requesting a second token from a stale view
    const stale = this.written.get(key);
    if (stale !== undefined && stale === secret.metadata?.resourceVersion) return { requeueAfterMs: 1000 };
    this.written.delete(key);
    const shoot = this.o.shoot(namespace);
    if (!shoot) return undefined;
    try {
      return await this.reconcileSecret(secret, shoot, ctx);
    } catch (error) {
      this.o.metrics.failures.inc();
      await this.o.recorder?.event(
        { apiVersion: 'v1', kind: 'Secret', name, namespace, uid: secret.metadata?.uid },
        'Warning',
        REASON_FAILED,
        describe(error),
      );
      throw error;
    }
  }

  private async reconcileSecret(
    secret: V1Secret,
    shoot: TokenShootApi,
    ctx: ReconcileContext,
  ): Promise<ReconcileResult> {
    const spec = tokenRequestSpec(secret);
    const current = spec.target
      ? (await shoot.getIfExists<V1Secret>(RESOURCE.secret, spec.target))?.data?.[DATA_KEY.token]
      : secret.data?.[DATA_KEY.token];
    const decision = tokenDecision(spec, current, this.o.clock.now());
    if (decision.action === 'wait') return { requeueAfterMs: decision.inMs };
    ctx.log.debug({ reason: decision.reason }, 'Requesting a token');

    await this.ensureServiceAccount(shoot, spec);
    const issuedAt = this.o.clock.now();
    const request = await shoot.createSubresource<TokenRequest>(
      RESOURCE.serviceAccount,
      { name: spec.serviceAccountName, namespace: spec.serviceAccountNamespace },
      'token',
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { audiences: [], expirationSeconds: spec.expirationSeconds },
      },
    );
    const token = request.status?.token;
    if (!token) throw new Error('the TokenRequest returned no token');
    this.o.metrics.tokensRequested.inc();
    // the API server may shorten the lifetime (--service-account-max-token-expiration): renew by
    // what it granted, as GRM does
    const granted = request.status?.expirationTimestamp
      ? new Date(request.status.expirationTimestamp).getTime()
      : issuedAt + spec.expirationSeconds * 1000;
    const renew = renewTime(issuedAt, granted, this.o.random);
    const encoded = Buffer.from(token, 'utf8').toString('base64');

    if (spec.target) await this.writeTarget(shoot, spec.target, encoded);
    const ref = { name: secret.metadata?.name ?? '', namespace: secret.metadata?.namespace ?? '' };
    await this.o.seed.mergePatch(
      RESOURCE.secret,
      ref,
      seedSecretPatch(secret, spec, renew.annotation, encoded),
    );
    if (secret.metadata?.resourceVersion)
      this.written.set(`${ref.namespace}/${ref.name}`, secret.metadata.resourceVersion);
    ctx.log.info(
      {
        serviceAccount: `${spec.serviceAccountNamespace}/${spec.serviceAccountName}`,
        target: spec.target ? `${spec.target.namespace}/${spec.target.name}` : 'seed secret',
        expirationSeconds: spec.expirationSeconds,
        renewAt: renew.annotation,
      },
      'Requested a token',
    );
    return { requeueAfterMs: Math.max(0, renew.at - this.o.clock.now()) };
  }

  private async ensureServiceAccount(shoot: TokenShootApi, spec: TokenRequestSpec): Promise<void> {
    const ref = { name: spec.serviceAccountName, namespace: spec.serviceAccountNamespace };
    let change = serviceAccountChange(
      await shoot.getIfExists<V1ServiceAccount>(RESOURCE.serviceAccount, ref),
      spec,
    );
    if (change.action === 'create') {
      try {
        await shoot.create(RESOURCE.serviceAccount, change.body);
        return;
      } catch (e) {
        // created meanwhile: decide again on what is there
        if (!isApiStatus(e, 409)) throw e;
        change = serviceAccountChange(
          await shoot.getIfExists<V1ServiceAccount>(RESOURCE.serviceAccount, ref),
          spec,
        );
      }
    }
    if (change.action === 'patch') await shoot.mergePatch(RESOURCE.serviceAccount, ref, change.body);
  }

  private async writeTarget(
    shoot: TokenShootApi,
    target: { readonly name: string; readonly namespace: string },
    encodedToken: string,
  ): Promise<void> {
    let change = targetChange(
      await shoot.getIfExists<V1Secret>(RESOURCE.secret, target),
      target,
      encodedToken,
    );
    if (change.action === 'create') {
      try {
        await shoot.create(RESOURCE.secret, change.body);
        return;
      } catch (e) {
        if (!isApiStatus(e, 409)) throw e;
        change = targetChange({}, target, encodedToken);
      }
    }
    if (change.action === 'patch') await shoot.mergePatch(RESOURCE.secret, target, change.body);
  }
}
