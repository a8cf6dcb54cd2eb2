/**
 * Wires the os-local controller: an informer on `extensions.gardener.cloud/v1alpha1`
 * OperatingSystemConfigs (all namespaces, or one informer per listed namespace) feeds a work
 * queue with the OSCs of its type that need work (`decide`); updates that only touch the status
 * (its own writes) never enqueue. Upstream's OS extensions do the same with controller-runtime
 * (type predicate plus "has operation annotation, last operation not successful, is deleting").
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { StatusOptions } from '../../components/os-local/status.js';
import { Controller } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import { Informer, objectKey } from '../../runtime/kube/informer.js';
import type { KubeHttp } from '../../runtime/kube/kube-http.js';
import { type Logger, silentLogger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';
import { KubeOsLocalClient, OSC_GROUP, OSC_PLURAL, OSC_VERSION, type OsLocalClient } from './client.js';
import { decide, type OscObject, oscType, updateNeedsReconcile } from './decide.js';
import { OsLocalReconciler } from './reconciler.js';

export const CONTROLLER_NAME = 'os-local';
/** The OSC type os-local serves unless told otherwise (provider-local's machine image). */
export const DEFAULT_TYPE = 'local';
/** Upstream OS extensions: `--operatingsystemconfig-max-concurrent-reconciles` defaults to 5. */
export const DEFAULT_CONCURRENCY = 5;
const RECONCILE_TIMEOUT_MS = 3 * 60_000;

export interface OsLocalControllerOptions {
  /** Seed API server, for the informer's list and watch. */
  readonly http: KubeHttp;
  /** Seed API server, for the writes. */
  readonly kubeConfig: KubeConfig;
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
  /** Replaces the client-node client (tests). */
  readonly client?: OsLocalClient;
}

export interface OsLocalController {
  /** Resolves once every informer listed and the workers started. */
  synced(): Promise<void>;
  /** Resolves once the informers and the workers stopped after the signal aborted. */
  stopped(): Promise<void>;
}

export function oscCollectionPath(namespace?: string): string {
  const base = `/apis/${OSC_GROUP}/${OSC_VERSION}`;
  return namespace ? `${base}/namespaces/${namespace}/${OSC_PLURAL}` : `${base}/${OSC_PLURAL}`;
}

export function startOsLocalController(o: OsLocalControllerOptions, signal: AbortSignal): OsLocalController {
  const type = o.type ?? DEFAULT_TYPE;
  const log = (o.log ?? silentLogger).child({ controller: CONTROLLER_NAME, type });
  const reconciler = new OsLocalReconciler({
    type,
    client: o.client ?? new KubeOsLocalClient(o.kubeConfig),
    recorder: o.recorder,
    status: o.status,
  });
  const controller = new Controller({
    name: CONTROLLER_NAME,
    reconcile: (key, ctx) => reconciler.reconcile(key, ctx),
    concurrency: o.concurrency ?? DEFAULT_CONCURRENCY,
    timeoutMs: RECONCILE_TIMEOUT_MS,
    log: o.log,
    metrics: o.metrics,
  });
  const ours = (osc: OscObject) => oscType(osc) === type;
  const namespaces = o.namespaces?.length ? [...new Set(o.namespaces)] : [undefined];
  const informers = namespaces.map((namespace) =>
    new Informer<OscObject>({ http: o.http, path: oscCollectionPath(namespace), log, metrics: o.metrics }).on(
      {
        add: (osc) => {
          if (ours(osc) && decide(osc).action !== 'none') controller.queue.add(objectKey(osc));
        },
        update: (previous, next) => {
          if (ours(next) && updateNeedsReconcile(previous, next)) controller.queue.add(objectKey(next));
        },
      },
    ),
  );
  for (const informer of informers) informer.start(signal);
  const synced = Promise.all(informers.map((i) => i.waitForSync(signal))).then(() => {
    controller.start(signal);
    log.info({ namespaces: o.namespaces?.length ? namespaces : 'all' }, 'os-local controller started');
  });
  synced.catch(() => undefined);
  return {
    synced: () => synced,
    stopped: async () => {
      await Promise.all(informers.map((i) => i.stopped()));
      await controller.stopped();
    },
  };
}
