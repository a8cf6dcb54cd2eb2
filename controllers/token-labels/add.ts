/**
 * Wires the token-labels controller for one shoot: the seed cache's informer on shoot-access
 * secrets (label selector purpose=token-requestor, class=shoot; this shoot's namespace) derives the
 * set of target secrets; each target is watched alone in the shoot (field selector
 * `metadata.name=<name>` in its namespace, held in the shoot cache while it is a target). Keys are
 * `namespace/name`. A target that stops being one keeps its label (it still holds a token).
 */

import { whenAborted } from '../../runtime/abort.js';
import { Controller } from '../../runtime/controller.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { Informer } from '../../runtime/kube/informer.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import type { KubeObject } from '../../runtime/kube/list-watch.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { ProcessContext, RunningController, ShootContext } from '../../seed/manager/context.js';
import {
  type AccessTokenLabelPatch,
  type SecretObject,
  type TargetSecret,
  targetsFromShootAccessSecrets,
} from './decide.js';
import { tokenLabelsMetrics } from './metrics.js';
import { type SecretPatcher, TokenLabelsReconciler } from './reconciler.js';

export const TOKEN_LABELS_CONTROLLER_NAME = 'token-labels';

interface Watched {
  readonly target: TargetSecret;
  readonly informer: Informer<SecretObject>;
  release(): void;
  unsubscribe(): void;
}

export interface RunningTokenLabelsController extends RunningController {
  readonly controller: Controller;
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

export function startTokenLabelsController(
  shoot: ShootContext,
  env: ProcessContext,
  seedSecrets: Informer<KubeObject>,
): RunningTokenLabelsController {
  const { signal } = shoot;
  const log = shoot.log.child({ shoot: shoot.namespace });
  const metrics = tokenLabelsMetrics(env.metrics.registry);
  const watched = new Map<string, Watched>();

  const reconciler = new TokenLabelsReconciler({
    shoot: shoot.namespace,
    target: (key) => watched.get(key)?.target,
    secret: (key) => {
      const w = watched.get(key);
      return w?.informer.get(w.target.name, w.target.namespace);
    },
    patcher: secretPatcher(shoot.client),
    recorder: env.recorder,
    eventObject: shoot.eventObject,
    metrics,
  });
  const controller = new Controller({
    name: TOKEN_LABELS_CONTROLLER_NAME,
    reconcile: (key, rctx) => reconciler.reconcile(key, rctx),
    concurrency: 2,
    timeoutMs: 60_000,
    log,
    metrics: env.metrics,
  });

  const ours = () => seedSecrets.list().filter((s) => s.metadata?.namespace === shoot.namespace);
  const reportedProblems = new Set<string>();
  const updateTargets = () => {
    if (signal.aborted) return;
    const { targets, problems } = targetsFromShootAccessSecrets(ours());
    for (const problem of problems) {
      if (reportedProblems.has(problem)) continue;
      reportedProblems.add(problem);
      log.warn({ problem }, 'Ignoring a shoot-access secret with an unusable target');
      void env.recorder.event(shoot.eventObject, 'Warning', 'InvalidAccessTokenTarget', problem);
    }
    for (const known of reportedProblems) if (!problems.includes(known)) reportedProblems.delete(known);
    for (const [key, w] of watched) {
      if (targets.has(key)) continue;
      watched.delete(key);
      w.unsubscribe();
      w.release();
      log.info({ secret: key }, 'Stopped watching a secret that is no longer an access-token target');
    }
    for (const [key, target] of targets) {
      if (watched.has(key)) continue;
      const { informer, release } = shoot.cache.acquire<SecretObject>({
        resource: RESOURCE.secret,
        namespace: target.namespace,
        fieldSelector: `metadata.name=${target.name}`,
      });
      const unsubscribe = informer.subscribe({
        add: () => controller.queue.add(key),
        update: () => controller.queue.add(key),
      });
      watched.set(key, { target, informer, release, unsubscribe });
      log.info({ secret: key }, 'Watching access-token target');
    }
    metrics.targets.set({ shoot: shoot.namespace }, watched.size);
  };
  const inNamespace = (s: KubeObject) => {
    if (s.metadata?.namespace === shoot.namespace) updateTargets();
  };
  const unsubscribeSeed = seedSecrets.subscribe({
    add: inNamespace,
    update: (_, s) => inNamespace(s),
    delete: inNamespace,
  });
  controller.start(signal);

  // Synced: the seed's secrets listed, and every target they name listed in the shoot.
  const synced = seedSecrets.waitForSync(signal).then(async () => {
    updateTargets();
    await Promise.all([...watched.values()].map((w) => w.informer.waitForSync(signal)));
  });
  synced.catch(() => undefined);
  const stopped = (async () => {
    await whenAborted(signal);
    unsubscribeSeed();
    for (const w of watched.values()) {
      w.unsubscribe();
      w.release();
    }
    await controller.stopped();
    metrics.targets.remove({ shoot: shoot.namespace });
  })();
  return {
    controller,
    targets: () => new Map([...watched].map(([key, w]) => [key, w.target])),
    synced: () => synced,
    stopped: () => stopped,
  };
}
