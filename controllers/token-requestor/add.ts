/**
 * Wires the direct-mode token-requestor: informers on seed Secrets labelled
 * `resources.gardener.cloud/purpose=token-requestor,resources.gardener.cloud/class=shoot` (one per
 * given namespace, or one over all namespaces), a controller that reconciles them one key
 * (`<namespace>/<name>`) at a time, and a requeue at each secret's renew time. Secrets of namespaces
 * whose shoot `shootKubeConfig` does not return are skipped; `resync(namespace)` re-queues them once
 * the shoot becomes reachable (e.g. when the manager selects its Cluster).
 */
import type { KubeConfig, V1Secret } from '@kubernetes/client-node';
import { LABEL, LABEL_VALUE } from '../../api/index.js';
import { type Clock, realClock } from '../../runtime/clock.js';
import { Controller } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import { Informer, objectKey } from '../../runtime/kube/informer.js';
import type { KubeHttp } from '../../runtime/kube/kube-http.js';
import { type Logger, silentLogger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';
import type { RunningShootController, ShootContext } from '../../seed/manager/shoot-context.js';
import { tokenRequestorMetrics } from './metrics.js';
import { TokenRequestorReconciler } from './reconciler.js';

export const CONTROLLER_NAME = 'token-requestor';
const RECONCILE_TIMEOUT_MS = 60_000;

export const TOKEN_REQUESTOR_SELECTOR = `${LABEL.tokenRequestorPurpose}=${LABEL_VALUE.purposeTokenRequestor},${LABEL.resourceClass}=${LABEL_VALUE.classShoot}`;

export interface TokenRequestorOptions {
  /** Seed API access for the watches. */
  readonly http: KubeHttp;
  /** Seed credentials for writing the seed secrets (renew timestamp). */
  readonly seed: KubeConfig;
  /** Credentials of the shoot behind a seed namespace; undefined: not ours, skip. */
  readonly shootKubeConfig: (namespace: string) => Promise<KubeConfig | undefined>;
  /** Seed namespaces to watch; default all. */
  readonly namespaces?: readonly string[];
  readonly log?: Logger;
  readonly metrics: RuntimeMetrics;
  /** Records a Warning event on a seed secret whose reconcile failed. */
  readonly recorder?: EventRecorder;
  readonly clock?: Clock;
  /** The jitter's random source (tests). */
  readonly random?: () => number;
  readonly concurrency?: number;
}

export interface RunningTokenRequestor {
  /** Resolves once the caches are filled and the workers run. */
  synced(): Promise<void>;
  /** Resolves once the watches and workers stopped after the signal aborted. */
  stopped(): Promise<void>;
  /** Re-queues the cached secrets (of one namespace, or all), e.g. once their shoot is reachable. */
  resync(namespace?: string): void;
}

export function startTokenRequestor(o: TokenRequestorOptions, signal: AbortSignal): RunningTokenRequestor {
  const log = (o.log ?? silentLogger).child({ controller: CONTROLLER_NAME });
  const clock = o.clock ?? realClock;
  const informerFor = (path: string) =>
    new Informer<V1Secret>({
      http: o.http,
      path,
      labelSelector: TOKEN_REQUESTOR_SELECTOR,
      clock,
      log,
      metrics: o.metrics,
    });
  const informers = new Map<string, Informer<V1Secret>>();
  if (o.namespaces) {
    for (const ns of new Set(o.namespaces))
      informers.set(ns, informerFor(`/api/v1/namespaces/${encodeURIComponent(ns)}/secrets`));
  } else {
    informers.set('', informerFor('/api/v1/secrets'));
  }
  const seedSecret = (namespace: string, name: string) =>
    (informers.get(namespace) ?? informers.get(''))?.get(name, namespace);

  const reconciler = new TokenRequestorReconciler({
    seedSecret,
    seed: o.seed,
    shootKubeConfig: o.shootKubeConfig,
    clock,
    random: o.random,
    metrics: tokenRequestorMetrics(o.metrics.registry),
    recorder: o.recorder,
  });
  const controller = new Controller({
    name: CONTROLLER_NAME,
    reconcile: (key, ctx) => reconciler.reconcile(key, ctx),
    concurrency: o.concurrency ?? 2,
    timeoutMs: RECONCILE_TIMEOUT_MS,
    clock,
    log,
    metrics: o.metrics,
  });
  const enqueue = (s: V1Secret) => controller.queue.add(objectKey(s));
  for (const informer of informers.values()) {
    informer.on({ add: enqueue, update: (_previous, next) => enqueue(next) });
    informer.start(signal);
  }
  const synced = Promise.all([...informers.values()].map((i) => i.waitForSync(signal))).then(() =>
    controller.start(signal),
  );
  synced.catch(() => undefined);
  return {
    synced: () => synced,
    stopped: async () => {
      await Promise.all([...informers.values()].map((i) => i.stopped()));
      await controller.stopped();
    },
    resync: (namespace) => {
      for (const informer of informers.values())
        for (const s of informer.list()) if (!namespace || s.metadata?.namespace === namespace) enqueue(s);
    },
  };
}

/**
 * The token-requestor for one selected shoot (controller-manager wiring, see ShootContext): watches
 * only the shoot's seed namespace and mints tokens into `ctx.shootKubeConfig`.
 */
export function startShootTokenRequestor(
  ctx: ShootContext,
  seed: { readonly http: KubeHttp; readonly kubeConfig: KubeConfig },
  signal: AbortSignal,
  options: { readonly clock?: Clock; readonly random?: () => number } = {},
): RunningShootController {
  return startTokenRequestor(
    {
      http: seed.http,
      seed: seed.kubeConfig,
      shootKubeConfig: async (namespace) => (namespace === ctx.namespace ? ctx.shootKubeConfig : undefined),
      namespaces: [ctx.namespace],
      log: ctx.log,
      metrics: ctx.metrics,
      recorder: ctx.recorder,
      ...options,
    },
    signal,
  );
}
