/**
 * The token-requestor of direct mode (seed-side §8.1): what gardener-resource-manager does for a
 * seed secret labelled `resources.gardener.cloud/purpose=token-requestor` and
 * `resources.gardener.cloud/class=shoot`.
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
import {
  ApiException,
  CoreV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1Secret,
  type V1ServiceAccount,
} from '@kubernetes/client-node';
import * as z from 'zod';
import { ANNOTATION, DATA_KEY } from '../../api/index.js';
import type { Clock } from '../../runtime/clock.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { TokenRequestorMetrics } from './metrics.js';
import { renewDue, renewTime, tokenExpirationSeconds } from './renew-timestamp.js';

export const REASON_FAILED = 'TokenRequestFailed';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

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

export interface TokenRequestorReconcilerOptions {
  /** The seed secret from the informer cache; undefined once deleted. */
  readonly seedSecret: (namespace: string, name: string) => V1Secret | undefined;
  readonly seed: KubeConfig;
  readonly shootKubeConfig: (namespace: string) => Promise<KubeConfig | undefined>;
  readonly clock: Clock;
  readonly random?: () => number;
  readonly metrics: TokenRequestorMetrics;
  readonly recorder?: EventRecorder;
}

function describe(e: unknown): string {
  if (e instanceof ApiException) {
    try {
      const status = JSON.parse(String(e.body)) as { message?: string };
      if (status.message) return `HTTP ${e.code}: ${status.message}`;
    } catch {
      // not a Status
    }
    return `HTTP ${e.code}`;
  }
  return e instanceof Error ? e.message : String(e);
}

export class TokenRequestorReconciler {
  private readonly seedCore: CoreV1Api;
  private readonly shootCores = new WeakMap<KubeConfig, CoreV1Api>();
  /** Seed secrets we renewed, by the resourceVersion our patch replaced (our write not yet in the cache). */
  private readonly written = new Map<string, string>();

  constructor(private readonly o: TokenRequestorReconcilerOptions) {
    this.seedCore = o.seed.makeApiClient(CoreV1Api);
  }

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
    const shoot = await this.o.shootKubeConfig(namespace);
    if (!shoot) return undefined;
    try {
      return await this.reconcileSecret(secret, this.shootCore(shoot), ctx);
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

  private shootCore(kc: KubeConfig): CoreV1Api {
    let core = this.shootCores.get(kc);
    if (!core) {
      core = kc.makeApiClient(CoreV1Api);
      this.shootCores.set(kc, core);
    }
    return core;
  }

  private async reconcileSecret(
    secret: V1Secret,
    shoot: CoreV1Api,
    ctx: ReconcileContext,
  ): Promise<ReconcileResult> {
    const spec = tokenRequestSpec(secret);
    const namespace = secret.metadata!.namespace!;
    const name = secret.metadata!.name!;
    const due = renewDue(spec.renewTimestamp, this.o.clock.now());
    if (!due.due) {
      const current = spec.target
        ? (await this.readSecret(shoot, spec.target.namespace, spec.target.name))?.data?.[DATA_KEY.token]
        : secret.data?.[DATA_KEY.token];
      if (current) return { requeueAfterMs: due.inMs };
      ctx.log.info('The target secret has no token, requesting one before the renew time');
    }

    await this.ensureServiceAccount(shoot, spec);
    const issuedAt = this.o.clock.now();
    const request = await shoot.createNamespacedServiceAccountToken({
      name: spec.serviceAccountName,
      namespace: spec.serviceAccountNamespace,
      body: { spec: { audiences: [], expirationSeconds: spec.expirationSeconds } },
    });
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
    const patch: Record<string, unknown> = {
      metadata: { annotations: { [ANNOTATION.tokenRenewTimestamp]: renew.annotation } },
    };
    if (!spec.target) patch.data = { [DATA_KEY.token]: encoded };
    else if (secret.data?.[DATA_KEY.token] !== undefined) patch.data = { [DATA_KEY.token]: null };
    await this.seedCore.patchNamespacedSecret({ name, namespace, body: patch }, mergePatch);
    if (secret.metadata?.resourceVersion)
      this.written.set(`${namespace}/${name}`, secret.metadata.resourceVersion);
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

  private async readSecret(core: CoreV1Api, namespace: string, name: string): Promise<V1Secret | undefined> {
    try {
      return await core.readNamespacedSecret({ name, namespace });
    } catch (e) {
      if (isApiStatus(e, 404)) return undefined;
      throw e;
    }
  }

  private async ensureServiceAccount(core: CoreV1Api, spec: TokenRequestSpec): Promise<void> {
    const { serviceAccountName: name, serviceAccountNamespace: namespace } = spec;
    let existing: V1ServiceAccount | undefined;
    try {
      existing = await core.readNamespacedServiceAccount({ name, namespace });
    } catch (e) {
      if (!isApiStatus(e, 404)) throw e;
    }
    if (!existing) {
      try {
        await core.createNamespacedServiceAccount({
          namespace,
          body: {
            metadata: {
              name,
              namespace,
              ...(Object.keys(spec.serviceAccountLabels).length ? { labels: spec.serviceAccountLabels } : {}),
            },
            automountServiceAccountToken: false,
          },
        });
        return;
      } catch (e) {
        // created meanwhile: fall through to the update
        if (!isApiStatus(e, 409)) throw e;
        existing = await core.readNamespacedServiceAccount({ name, namespace });
      }
    }
    const labels = existing.metadata?.labels ?? {};
    const missingLabels = Object.entries(spec.serviceAccountLabels).filter(([k, v]) => labels[k] !== v);
    if (existing.automountServiceAccountToken === false && missingLabels.length === 0) return;
    await core.patchNamespacedServiceAccount(
      {
        name,
        namespace,
        body: {
          automountServiceAccountToken: false,
          ...(missingLabels.length ? { metadata: { labels: Object.fromEntries(missingLabels) } } : {}),
        },
      },
      mergePatch,
    );
  }

  private async writeTarget(
    core: CoreV1Api,
    target: { name: string; namespace: string },
    encodedToken: string,
  ): Promise<void> {
    const existing = await this.readSecret(core, target.namespace, target.name);
    if (!existing) {
      try {
        await core.createNamespacedSecret({
          namespace: target.namespace,
          body: {
            metadata: { name: target.name, namespace: target.namespace },
            type: 'Opaque',
            data: { [DATA_KEY.token]: encodedToken },
          },
        });
        return;
      } catch (e) {
        if (!isApiStatus(e, 409)) throw e;
      }
    } else if (existing.data?.[DATA_KEY.token] === encodedToken) {
      return;
    }
    await core.patchNamespacedSecret(
      { name: target.name, namespace: target.namespace, body: { data: { [DATA_KEY.token]: encodedToken } } },
      mergePatch,
    );
  }
}
