/**
 * Wires the direct-mode token-requestor: the seed cache's informer on shoot-access secrets
 * (`resources.gardener.cloud/purpose=token-requestor,resources.gardener.cloud/class=shoot`, shared
 * with token-labels) feeds a controller that reconciles one seed secret (`<namespace>/<name>`) at
 * a time and requeues it at its renew time. Secrets of namespaces whose shoot is not running are
 * skipped; they are queued again when it starts.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { type Clock, realClock } from '../../runtime/clock.js';
import { newController } from '../../runtime/controller-builder.js';
import type { EventRecorder } from '../../runtime/events.js';
import { type Informer, objectKey } from '../../runtime/kube/informer.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { type Logger, silentLogger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';
import type { RunningController } from '../../runtime/running-controller.js';
import type { SeedContext } from '../../seed/manager/context.js';
import { shootAccessSecrets } from '../../seed/manager/seed-informers.js';
import { tokenRequestorMetrics } from './metrics.js';
import { TokenRequestorReconciler, type TokenShootApi } from './reconciler.js';

export const CONTROLLER_NAME = 'token-requestor';
const RECONCILE_TIMEOUT_MS = 60_000;

export interface TokenRequestorOptions {
  /** The seed's shoot-access secrets (informer; it runs with its cache). */
  readonly secrets: Informer<V1Secret>;
  /** Writes the renew timestamp (and a token without target) into the seed secret. */
  readonly seed: Pick<KubeClient, 'mergePatch'>;
  /** The shoot of a seed namespace; undefined: not ours (yet), skip. */
  readonly shoot: (namespace: string) => TokenShootApi | undefined;
  /** Only the secrets of these seed namespaces; default all. */
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

export interface RunningTokenRequestor extends RunningController {
  /** Re-queues the cached secrets (of one namespace, or all), e.g. once their shoot is reachable. */
  resync(namespace?: string): void;
}

export function startTokenRequestor(o: TokenRequestorOptions, signal: AbortSignal): RunningTokenRequestor {
  const log = (o.log ?? silentLogger).child({ controller: CONTROLLER_NAME });
  const clock = o.clock ?? realClock;
  const namespaces = o.namespaces ? new Set(o.namespaces) : undefined;
  const ours = (s: V1Secret) => !namespaces || namespaces.has(s.metadata?.namespace ?? '');
  const reconciler = new TokenRequestorReconciler({
    seedSecret: (namespace, name) => o.secrets.get(name, namespace),
    seed: o.seed,
    shoot: o.shoot,
    clock,
    random: o.random,
    metrics: tokenRequestorMetrics(o.metrics.registry),
    recorder: o.recorder,
  });
  const running = newController(CONTROLLER_NAME, {
    concurrency: o.concurrency ?? 2,
    timeoutMs: RECONCILE_TIMEOUT_MS,
    clock,
    log,
    metrics: o.metrics,
  })
    .watches(o.secrets, objectKey, { create: ours, update: (_previous, next) => ours(next) })
    .start(signal, (key, ctx) => reconciler.reconcile(key, ctx));
  return {
    ...running,
    resync: (namespace) => {
      for (const s of o.secrets.list())
        if (ours(s) && (!namespace || s.metadata?.namespace === namespace))
          running.controller.queue.add(objectKey(s));
    },
  };
}

/** The token-requestor of the controller-manager: tokens for every running shoot. */
export function addTokenRequestorController(seed: SeedContext): RunningController {
  const running = startTokenRequestor(
    {
      secrets: shootAccessSecrets(seed.cache),
      seed: seed.client,
      shoot: (namespace) => seed.shoots.get(namespace)?.client,
      log: seed.log,
      metrics: seed.metrics,
      recorder: seed.recorder,
    },
    seed.signal,
  );
  seed.shoots.onStarted((namespace) => running.resync(namespace));
  return running;
}
