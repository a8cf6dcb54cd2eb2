/**
 * Wires the os-local controller: the seed cache's informer on `extensions.gardener.cloud/v1alpha1`
 * OperatingSystemConfigs (all namespaces, shared with the operatingsystemconfig controller; or one
 * per listed namespace) feeds a work queue with the OSCs of its type that need work (`decide`);
 * updates that only touch the status (its own writes) never enqueue. Upstream's OS extensions do the same with controller-runtime
 * (type predicate plus "has operation annotation, last operation not successful, is deleting").
 */
import type { StatusOptions } from '../../components/os-local/status.js';
import { newController } from '../../runtime/controller-builder.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import { objectKey } from '../../runtime/kube/informer.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type Logger, silentLogger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';
import type { RunningController } from '../../runtime/running-controller.js';
import type { SeedContext } from '../../seed/manager/context.js';
import { operatingSystemConfigs } from '../../seed/manager/seed-informers.js';
import { KubeOsLocalClient, type OsLocalClient } from './client.js';
import { decide, type OscObject, oscType, updateNeedsReconcile } from './decide.js';
import { OsLocalReconciler } from './reconciler.js';

export const CONTROLLER_NAME = 'os-local';
/** The OSC type os-local serves unless told otherwise (provider-local's machine image). */
export const DEFAULT_TYPE = 'local';
/** Upstream OS extensions: `--operatingsystemconfig-max-concurrent-reconciles` defaults to 5. */
export const DEFAULT_CONCURRENCY = 5;
const RECONCILE_TIMEOUT_MS = 3 * 60_000;

export interface OsLocalControllerOptions {
  /** The seed's informer cache (its OperatingSystemConfigs are shared with other controllers). */
  readonly cache: ClusterCache;
  /** The seed's API, for the writes. */
  readonly client: OsLocalClient;
  /** `spec.type` of the OSCs to reconcile; default `local`. */
  readonly type?: string;
  /** Watch only these namespaces; default (or empty): all. */
  readonly namespaces?: readonly string[];
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly recorder?: EventRecorder;
  readonly concurrency?: number;
  /** What the extension adds to reconcile OSCs (`status.extensionUnits`/`extensionFiles`). */
  readonly status?: StatusOptions;
}

/** The controller over `o.cache`; stops when `signal` aborts. */
export function startOsLocalController(o: OsLocalControllerOptions, signal: AbortSignal): RunningController {
  const type = o.type ?? DEFAULT_TYPE;
  const log = (o.log ?? silentLogger).child({ controller: CONTROLLER_NAME, type });
  const reconciler = new OsLocalReconciler({
    type,
    client: o.client,
    recorder: o.recorder,
    status: o.status,
  });
  const builder = newController(CONTROLLER_NAME, {
    concurrency: o.concurrency ?? DEFAULT_CONCURRENCY,
    timeoutMs: RECONCILE_TIMEOUT_MS,
    log: o.log,
    metrics: o.metrics,
  });
  const ours = (osc: OscObject) => oscType(osc) === type;
  const namespaces = o.namespaces?.length ? [...new Set(o.namespaces)] : [undefined];
  for (const namespace of namespaces) {
    const informer =
      namespace === undefined
        ? operatingSystemConfigs<OscObject>(o.cache)
        : o.cache.informer<OscObject>({ resource: RESOURCE.operatingSystemConfig, namespace });
    builder.watches(informer, objectKey, {
      create: (osc) => ours(osc) && decide(osc).action !== 'none',
      update: (previous, next) => ours(next) && updateNeedsReconcile(previous, next),
    });
  }
  const running = builder.start(signal, (key, ctx) => reconciler.reconcile(key, ctx));
  void running.synced().then(
    () => log.info({ namespaces: o.namespaces?.length ? namespaces : 'all' }, 'os-local controller started'),
    () => undefined,
  );
  return running;
}

/** os-local in the controller-manager: the OS extension for OSCs of `type`, over the seed cache. */
export function addOsLocalController(seed: SeedContext, type: string): RunningController {
  return startOsLocalController(
    {
      cache: seed.cache,
      client: new KubeOsLocalClient(seed.client),
      type,
      log: seed.log,
      metrics: seed.metrics,
      recorder: seed.recorder,
    },
    seed.signal,
  );
}
