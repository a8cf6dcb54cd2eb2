/**
 * What a seed-side controller gets for one selected shoot: the Cluster it belongs to (its name is
 * the shoot namespace in the seed), credentials for the shoot's API server, and the process's
 * logging, metrics and event recorder. The controller-manager starts the per-shoot controllers
 * when a Cluster is selected and aborts their signal when it is deselected or deleted.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cluster } from '../../api/index.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { Logger } from '../../runtime/logging.js';
import type { RuntimeMetrics } from '../../runtime/metrics.js';

export interface ShootContext {
  /** The shoot namespace in the seed, e.g. `shoot--dev--demo`; also the Cluster's name. */
  readonly namespace: string;
  /** Admin-equivalent credentials for the shoot (from the seed secret `gardener-internal`, else `gardener`). */
  readonly shootKubeConfig: KubeConfig;
  /** The latest decoded Cluster (it may change while the controllers run). */
  readonly cluster: () => Cluster;
  readonly log: Logger;
  readonly metrics: RuntimeMetrics;
  /** Writes events into the seed; per-shoot controllers record on the Cluster (see clusterEventObject). */
  readonly recorder: EventRecorder;
}

/** Per-shoot controllers report on their Cluster (cluster-scoped: its events land in `default`). */
export function clusterEventObject(namespace: string, uid?: string) {
  return { apiVersion: 'extensions.gardener.cloud/v1alpha1', kind: 'Cluster', name: namespace, uid } as const;
}

/** What a started per-shoot controller returns. */
export interface RunningShootController {
  /** Resolves once its caches are filled (for readiness). */
  synced(): Promise<void>;
  /** Resolves once its workers and watches stopped after the signal aborted. */
  stopped(): Promise<void>;
}
