/**
 * Step 6 of the operatingsystemconfig reconcile: the shoot's node status (how many Nodes run their
 * pool's current OSC) as metrics, and as an event on the Cluster when it changed. The decisions
 * are node-status.ts's (pure); this keeps what was reported per shoot, so a status that did not
 * change is not reported again, not even after a restart (the Cluster's events hold the last one).
 */
import { type Cluster, FEATURE_GATE_USE_GARDENER_NODE_AGENT, LABEL_VALUE } from '../../api/index.js';
import type { Logger } from '../../runtime/logging.js';
import type { ControllerManagerConfiguration } from '../../seed/manager/config.js';
import type { OscControllerMetrics } from './metrics.js';
import {
  type ListedEvent,
  lastNodeStatusReport,
  nodeStatus,
  nodeStatusReport,
  sameReport,
} from './node-status.js';
import type { OscShoot } from './reconciler.js';

export interface NodeStatusReporterOptions {
  readonly config: ControllerManagerConfiguration;
  readonly metrics: OscControllerMetrics;
  readonly shoot: (namespace: string) => OscShoot | undefined;
  /** The uid of the live Cluster of a shoot namespace (its events are about it). */
  readonly clusterUid: (namespace: string) => string | undefined;
  /** The node status events of a Cluster, read once per shoot after a start (see reconciler.ts). */
  readonly nodeStatusEvents?: (namespace: string) => Promise<readonly ListedEvent[]>;
  readonly event: (namespace: string, reason: string, message: string) => void;
}

export class NodeStatusReporter {
  /** The last node status reported per namespace, so events are sent on changes only. */
  private readonly last = new Map<string, string>();

  constructor(private readonly o: NodeStatusReporterOptions) {}

  /**
   * Reports the node status, unless it is unknown (the shoot not running, its caches not filled),
   * as an event when it changed: since this process's last report, or, for the first report after
   * a start, since the report the Cluster's events hold (a restart writes nothing when nothing
   * changed).
   */
  async report(cluster: Cluster, log: Logger): Promise<void> {
    const namespace = cluster.name;
    const gate = this.o.config.featureGates[FEATURE_GATE_USE_GARDENER_NODE_AGENT];
    const role = gate ? LABEL_VALUE.roleOperatingSystemConfig : LABEL_VALUE.roleCloudConfig;
    const state = this.o.shoot(namespace)?.nodeState(cluster, role);
    if (!state) {
      log.info('Shoot not reachable (or its caches not filled yet), node status unknown');
      return;
    }
    const status = nodeStatus(state);
    this.o.metrics.nodesOutdated.set({ namespace }, status.outdated);
    this.o.metrics.nodesUpToDate.set({ namespace }, Math.max(0, status.total - status.outdated));
    const known = this.last.get(namespace);
    if (known === status.summary) return;
    const report = nodeStatusReport(status);
    if (known === undefined && sameReport(await this.lastReport(namespace, log), report)) {
      this.last.set(namespace, status.summary);
      return;
    }
    this.last.set(namespace, status.summary);
    this.o.event(namespace, report.reason, report.message);
  }

  /** Forgets a shoot: its status and its metrics. */
  forget(namespace: string): void {
    this.last.delete(namespace);
    for (const g of [this.o.metrics.nodesOutdated, this.o.metrics.nodesUpToDate]) g.remove({ namespace });
  }

  /** The node status the Cluster's events hold; undefined when they cannot be read. */
  private async lastReport(namespace: string, log: Logger) {
    if (!this.o.nodeStatusEvents) return undefined;
    try {
      return lastNodeStatusReport(await this.o.nodeStatusEvents(namespace), this.o.clusterUid(namespace));
    } catch (error) {
      log.debug({ err: error }, 'Reading the last node status event failed; reporting it again');
      return undefined;
    }
  }
}
