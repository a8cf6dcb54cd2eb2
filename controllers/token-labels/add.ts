/**
 * Wires the token-labels controller for one shoot: an informer on the seed's shoot-access secrets
 * (namespace `ctx.namespace`, label selector purpose=token-requestor, class=shoot) derives the set
 * of target secrets; each target gets its own shoot informer on that secret alone (field selector
 * `metadata.name=<name>` in its namespace), started and stopped as the target set changes. Keys are
 * `namespace/name`. A target that stops being one keeps its label (it still holds a token).
 */
import { ApiException, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { Controller } from '../../runtime/controller.js';
import { Informer } from '../../runtime/kube/informer.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import type { KubeObject } from '../../runtime/kube/list-watch.js';
import {
  clusterEventObject,
  type RunningShootController,
  type ShootContext,
} from '../../seed/manager/shoot-context.js';
import {
  type AccessTokenLabelPatch,
  type SecretObject,
  type SecretPatcher,
  SHOOT_ACCESS_SELECTOR,
  type TargetSecret,
  TokenLabelsReconciler,
  targetsFromShootAccessSecrets,
  tokenLabelsMetrics,
} from './reconciler.js';

export const TOKEN_LABELS_CONTROLLER_NAME = 'token-labels';

export interface TokenLabelsControllerOptions {
  /** The seed's API server: the shoot-access secrets live in `ctx.namespace` there. */
  readonly seedHttp: KubeHttp;
  /** The shoot's API server for watches (default: from `ctx.shootKubeConfig`). */
  readonly shootHttp?: KubeHttp;
}

interface Watched {
  readonly target: TargetSecret;
  readonly informer: Informer<SecretObject>;
  readonly abort: AbortController;
}

export interface RunningTokenLabelsController extends RunningShootController {
  readonly controller: Controller;
  /** The targets watched now, by `namespace/name`. */
  targets(): ReadonlyMap<string, TargetSecret>;
}

/** Merge patches through client-node: 409 is a conflict, 404 a secret gone meanwhile. */
export function coreSecretPatcher(core: CoreV1Api): SecretPatcher {
  return {
    async patch(target: TargetSecret, body: AccessTokenLabelPatch) {
      try {
        await core.patchNamespacedSecret(
          { name: target.name, namespace: target.namespace, body },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
        return 'patched';
      } catch (error) {
        if (error instanceof ApiException && error.code === 409) return 'conflict';
        if (error instanceof ApiException && error.code === 404) return 'gone';
        throw error;
      }
    },
  };
}

export function startTokenLabelsController(
  ctx: ShootContext,
  options: TokenLabelsControllerOptions,
  signal: AbortSignal,
): RunningTokenLabelsController {
  const log = ctx.log.child({ shoot: ctx.namespace });
  const ownHttp = options.shootHttp ? undefined : new KubeHttp(ctx.shootKubeConfig);
  const shootHttp = options.shootHttp ?? ownHttp!;
  const metrics = tokenLabelsMetrics(ctx.metrics.registry);
  const eventObject = clusterEventObject(ctx.namespace);
  const watched = new Map<string, Watched>();
  const stopping = new Set<Promise<void>>();

  const reconciler = new TokenLabelsReconciler({
    shoot: ctx.namespace,
    target: (key) => watched.get(key)?.target,
    secret: (key) => {
      const w = watched.get(key);
      return w?.informer.get(w.target.name, w.target.namespace);
    },
    patcher: coreSecretPatcher(ctx.shootKubeConfig.makeApiClient(CoreV1Api)),
    recorder: ctx.recorder,
    eventObject,
    metrics,
  });
  const controller = new Controller({
    name: TOKEN_LABELS_CONTROLLER_NAME,
    reconcile: (key, rctx) => reconciler.reconcile(key, rctx),
    concurrency: 2,
    timeoutMs: 60_000,
    log,
    metrics: ctx.metrics,
  });

  const seedSecrets = new Informer<KubeObject>({
    http: options.seedHttp,
    path: `/api/v1/namespaces/${ctx.namespace}/secrets`,
    labelSelector: SHOOT_ACCESS_SELECTOR,
    log,
    metrics: ctx.metrics,
  });

  const reportedProblems = new Set<string>();
  const updateTargets = () => {
    if (signal.aborted) return;
    const { targets, problems } = targetsFromShootAccessSecrets(seedSecrets.list());
    for (const problem of problems) {
      if (reportedProblems.has(problem)) continue;
      reportedProblems.add(problem);
      log.warn({ problem }, 'Ignoring a shoot-access secret with an unusable target');
      void ctx.recorder.event(eventObject, 'Warning', 'InvalidAccessTokenTarget', problem);
    }
    for (const known of reportedProblems) if (!problems.includes(known)) reportedProblems.delete(known);
    for (const [key, w] of watched) {
      if (targets.has(key)) continue;
      watched.delete(key);
      w.abort.abort();
      const done = w.informer.stopped();
      stopping.add(done);
      void done.finally(() => stopping.delete(done));
      log.info({ secret: key }, 'Stopped watching a secret that is no longer an access-token target');
    }
    for (const [key, target] of targets) {
      if (watched.has(key)) continue;
      const informer = new Informer<SecretObject>({
        http: shootHttp,
        path: `/api/v1/namespaces/${target.namespace}/secrets`,
        fieldSelector: `metadata.name=${target.name}`,
        log,
        metrics: ctx.metrics,
      });
      const abort = new AbortController();
      informer.on({ add: () => controller.queue.add(key), update: () => controller.queue.add(key) });
      watched.set(key, { target, informer, abort });
      informer.start(AbortSignal.any([signal, abort.signal]));
      log.info({ secret: key }, 'Watching access-token target');
    }
    metrics.targets.set({ shoot: ctx.namespace }, watched.size);
  };
  seedSecrets.on({ add: updateTargets, update: updateTargets, delete: updateTargets });
  seedSecrets.start(signal);
  controller.start(signal);

  // Synced: the seed's secrets listed, and every target they name listed in the shoot.
  const synced = seedSecrets.waitForSync(signal).then(async () => {
    await Promise.all([...watched.values()].map((w) => w.informer.waitForSync(signal)));
  });
  synced.catch(() => undefined);
  const stopped = (async () => {
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.all([
      seedSecrets.stopped(),
      controller.stopped(),
      ...stopping,
      ...[...watched.values()].map((w) => w.informer.stopped()),
    ]);
    metrics.targets.remove({ shoot: ctx.namespace });
    await ownHttp?.close();
  })();
  return {
    controller,
    targets: () => new Map([...watched].map(([key, w]) => [key, w.target])),
    synced: () => synced,
    stopped: () => stopped,
  };
}
