/**
 * What the health-check controller runs (gardener v1.91.4 pkg/nodeagent/controller/healthcheck/):
 * stateful checkers living as long as the process, each told about the Node (undefined until it is
 * registered) on every round.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { Counter } from 'prom-client';
import type { Clock } from '../../../runtime/clock.js';
import type { EventObject, EventSink, EventType } from '../../../runtime/events.js';
import type { Logger } from '../../../runtime/logging.js';
import type { Systemd } from '../../systemd/systemd.js';

export interface HealthChecker {
  /** `kubelet` or `containerd`: the event reason, logger name and metric label. */
  readonly name: string;
  /** Rejects when the round failed in a way worth a retry (e.g. the restart failed). */
  check(node: V1Node | undefined, signal: AbortSignal): Promise<void>;
}

export type NodeEvents = EventSink;

/** The events.k8s.io/v1 action (gardener v1.150.0 pkg/apis/core/v1beta1 `EventActionHealthCheck`). */
export const HEALTH_CHECK_ACTION = 'HealthCheck';

export interface HealthCheckMetrics {
  readonly healthCheckFailures: Counter<'component'>;
  readonly healthCheckRestarts: Counter<'component'>;
}

/** What every checker needs besides its probe. */
export interface CheckerDeps {
  readonly systemd: Systemd;
  readonly events: NodeEvents;
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics?: HealthCheckMetrics;
}

function nodeRef(node: V1Node): EventObject {
  return { apiVersion: 'v1', kind: 'Node', name: node.metadata?.name ?? '', uid: node.metadata?.uid };
}

/** Events are about the Node; before it is registered there is nothing to attach them to, only the log. */
export function nodeEvent(
  deps: CheckerDeps,
  node: V1Node | undefined,
  type: EventType,
  reason: string,
  message: string,
): void {
  if (node?.metadata?.name) void deps.events.event(nodeRef(node), type, reason, message, HEALTH_CHECK_ACTION);
}
