/**
 * Wires the token-labels controller for one shoot: the seed cache's informer on shoot-access
 * secrets (label selector purpose=token-requestor, class=shoot; this shoot's namespace) derives the
 * set of target secrets; each target is watched alone in the shoot (field selector
 * `metadata.name=<name>` in its namespace, held in the shoot cache while it is a target). Keys are
 * `namespace/name`. A target that stops being one keeps its label (it still holds a token).
 */

import { newController } from '../../runtime/controller-builder.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { Informer } from '../../runtime/kube/informer.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import type { KubeObject } from '../../runtime/kube/list-watch.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { RunningController } from '../../runtime/running-controller.js';
import type { ProcessContext, ShootContext } from '../../seed/manager/context.js';
import type { AccessTokenLabelPatch, SecretObject, TargetSecret } from './decide.js';
import { tokenLabelsMetrics } from './metrics.js';
import { type SecretPatcher, TokenLabelsReconciler } from './reconciler.js';
import { TargetWatches } from './target-watches.js';

export const TOKEN_LABELS_CONTROLLER_NAME = 'token-labels';

export interface RunningTokenLabelsController extends RunningController {
  /** The targets watched now, by `namespace/name`. */
  targets(): ReadonlyMap<string, TargetSecret>;
}

/** Merge patches through the shoot's API: 409 is a conflict, 404 a secret gone meanwhile. */
export function secretPatcher(client: Pick<KubeClient, 'mergePatch'>): SecretPatcher {
  return {
    async patch(target: TargetSecret, body: AccessTokenLabelPatch) {
      try {
        await client.mergePatch(RESOURCE.secret, target, body);
        return 'patched';
      } catch (error) {
        if (isApiStatus(error, 409)) return 'conflict';
        if (isApiStatus(error, 404)) return 'gone';
        throw error;
      }
    },
  };
}

export function addTokenLabelsController(
  shoot: ShootContext,
  seed: ProcessContext,
  seedSecrets: Informer<KubeObject>,
): RunningTokenLabelsController {
  const { signal } = shoot;
  const log = shoot.log.child({ shoot: shoot.namespace });
  const metrics = tokenLabelsMetrics(seed.metrics.registry);
  const reconciler = new TokenLabelsReconciler({
    shoot: shoot.namespace,
    target: (key) => watches.target(key),
    secret: (key) => watches.secret(key),
    patcher: secretPatcher(shoot.client),
    recorder: seed.recorder,
    eventObject: shoot.eventObject,
    metrics,
  });
  // no watch of its own at start: the targets' watches come and go with the seed's secrets
  const running = newController(TOKEN_LABELS_CONTROLLER_NAME, {
    concurrency: 2,
    timeoutMs: 60_000,
    log,
    metrics: seed.metrics,
  })
    // synced: the seed's secrets listed, and every target they name listed in the shoot
    .readyWhen(async () => {
      await seedSecrets.waitForSync(signal);
      watches.update();
      await watches.synced(signal);
    })
    .onStop(() => {
      unsubscribeSeed();
      watches.stop();
    })
    .ownsSeries(metrics.targets, { shoot: shoot.namespace })
    .start(signal, (key, ctx) => reconciler.reconcile(key, ctx));
  // declared after `running` (its watches subscribe through it); the closures above that read it
  // run only once the controller started or stops
  const watches: TargetWatches = new TargetWatches({
    namespace: shoot.namespace,
    seedSecrets,
    watchTarget: (target, key) => {
      const { informer, release } = shoot.cache.acquire<SecretObject>({
        resource: RESOURCE.secret,
        namespace: target.namespace,
        fieldSelector: `metadata.name=${target.name}`,
      });
      const unwatch = running.watch(informer, () => key, { create: true, update: true });
      return {
        informer,
        stop: () => {
          unwatch();
          release();
        },
      };
    },
    onProblem: (problem) => {
      log.warn({ problem }, 'Ignoring a shoot-access secret with an unusable target');
      void seed.recorder.event(shoot.eventObject, 'Warning', 'InvalidAccessTokenTarget', problem);
    },
    onCount: (count) => metrics.targets.set({ shoot: shoot.namespace }, count),
    log,
  });
  const changed = (s: KubeObject) => {
    if (!signal.aborted && watches.concerns(s)) watches.update();
  };
  const unsubscribeSeed = seedSecrets.subscribe({
    add: changed,
    update: (_, s) => changed(s),
    delete: changed,
  });
  return { ...running, targets: () => watches.targets() };
}
