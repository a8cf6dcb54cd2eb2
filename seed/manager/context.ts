/**
 * What a seed controller is given. Every controller of the process shares one API client and one
 * informer cache of the seed, and per selected shoot one API client and one informer cache of the
 * shoot (a kind is watched once per cluster however many controllers read it). A controller takes
 * what it needs from here in its add.ts and hands its reconciler only the narrow interfaces it
 * calls.
 */
import type { Registry } from 'prom-client';
import { type Cluster, type ClusterObject, decodeCluster } from '../../api/index.js';
import type { EventObject, EventRecorder } from '../../runtime/events.js';
import type { ClusterCache } from '../../runtime/kube/cluster-cache.js';
import type { Informer } from '../../runtime/kube/informer.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import type { Logger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';
import { type ControllerManagerConfiguration, clusterSelected } from './config.js';
import type { KeyedMutex } from './keyed-mutex.js';

export interface SeedContext {
  readonly config: ControllerManagerConfiguration;
  /** The seed's API (field manager `gardener-osc`). */
  readonly client: KubeClient;
  /** The seed's informers, shared by every controller. */
  readonly cache: ClusterCache;
  /** Every Cluster of the seed (selected or not). */
  readonly clusters: Informer<ClusterObject>;
  /** The running shoots: one per selected Cluster whose shoot can be reached. */
  readonly shoots: ShootRegistry;
  /** Serialises what the OperatingSystemConfig and migration controllers do for one shoot. */
  readonly mutex: KeyedMutex;
  readonly recorder: EventRecorder;
  readonly log: Logger;
  readonly metrics: RuntimeMetrics;
  readonly registry: Registry;
  /** Aborts when leadership is lost or the process stops. */
  readonly signal: AbortSignal;
}

export interface ShootRegistry {
  /** The shoot of a seed namespace while it runs (selected, reachable). */
  get(namespace: string): ShootContext | undefined;
  /** Calls `listener` with the namespace of every shoot that starts from now on. */
  onStarted(listener: (namespace: string) => void): void;
}

/** What a controller gets for one selected shoot. */
export interface ShootContext {
  /** The shoot namespace in the seed, e.g. `shoot--dev--demo`; also the Cluster's name. */
  readonly namespace: string;
  /** The latest decoded Cluster (it may change while the controllers run). */
  readonly cluster: () => Cluster;
  /** The shoot's API, with the credentials of the seed secret `gardener-internal` (else `gardener`). */
  readonly client: KubeClient;
  /** The shoot's informers, shared by every controller. */
  readonly cache: ClusterCache;
  /** Per-shoot controllers report on the Cluster. */
  readonly eventObject: EventObject;
  readonly log: Logger;
  /** Aborts when the shoot's controllers stop (deselected, deleted, leadership lost). */
  readonly signal: AbortSignal;
}

/** What a controller takes from the process itself: events, metrics, the log. */
export type ProcessContext = Pick<SeedContext, 'recorder' | 'metrics' | 'log'>;

/** A started controller. */
export interface RunningController {
  /** Resolves once its caches are filled (for readiness). */
  synced(): Promise<void>;
  /** Resolves once its workers and watches stopped after its signal aborted. */
  stopped(): Promise<void>;
}

/** Starts a controller over the seed; it stops when `seed.signal` aborts. */
export type SeedControllerStarter = (seed: SeedContext) => RunningController;

/** Starts a controller for one shoot; it stops when `shoot.signal` aborts. */
export type ShootControllerStarter = (shoot: ShootContext, seed: SeedContext) => RunningController;

/** The `source.component` of the controller-manager's events. */
export const EVENT_COMPONENT = 'gardener-osc-controller-manager';

/** A Cluster is cluster-scoped: events about it land in `default`. */
export const CLUSTER_EVENT_NAMESPACE = 'default';

/** The field selector of the events this process recorded on one Cluster. */
export const clusterEventsSelector = (namespace: string): string =>
  `involvedObject.kind=Cluster,involvedObject.name=${namespace},source=${EVENT_COMPONENT}`;

/** A Cluster is cluster-scoped: events about it land in `default`. */
export function clusterEventObject(namespace: string, uid?: string): EventObject {
  return { apiVersion: 'extensions.gardener.cloud/v1alpha1', kind: 'Cluster', name: namespace, uid };
}

/** The decoded Cluster if this process acts on it: selected by label and not being deleted. */
export function selectedCluster(
  config: Pick<ControllerManagerConfiguration, 'clusterSelector'>,
  live: ClusterObject | undefined,
): Cluster | undefined {
  return live?.metadata?.deletionTimestamp ? undefined : clusterOfShoot(config, live);
}

/**
 * The decoded Cluster while its shoot is ours to reach: selected by label, also while it is being
 * deleted (what we put into the shoot is removed then).
 */
export function clusterOfShoot(
  config: Pick<ControllerManagerConfiguration, 'clusterSelector'>,
  live: ClusterObject | undefined,
): Cluster | undefined {
  if (!live || !clusterSelected(config, live.metadata?.labels)) return undefined;
  const decoded = decodeCluster(live);
  return decoded.ok ? decoded.value : undefined;
}
