/**
 * The health-check controller (gardener v1.91.4 `pkg/nodeagent/controller/healthcheck/add.go`): every 30 s, and whenever the Node changes, all
 * checkers run in parallel; their errors are aggregated into one reconcile error (retried with
 * backoff). Checks also run before the Node is registered: a kubelet that cannot come up is
 * exactly the one that needs a restart, only the events wait for a Node to attach to.
 */
import type { V1Node } from '@kubernetes/client-node';
import { type Clock, realClock } from '../../../runtime/clock.js';
import { newController, type WatchSource } from '../../../runtime/controller-builder.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { RunningController } from '../../../runtime/running-controller.js';
import type { Systemd } from '../../systemd/systemd.js';
import type { HealthChecker, HealthCheckMetrics, NodeEvents } from './checker.js';
import { type ContainerdCheck, ContainerdHealthChecker } from './containerd-health.js';
import { nodeStatusWriter } from './internal-ip.js';
import { KubeletHealthChecker } from './kubelet-health.js';
import { kubeletHealthzProbe } from './kubelet-healthz.js';

export const HEALTH_CHECK_CONTROLLER_NAME = 'health-check';
export const HEALTH_CHECK_INTERVAL_MS = 30_000;
/** The controller has one item: "check now". */
export const HEALTH_CHECK_KEY = 'health-check';

export interface HealthCheckControllerOptions {
  /** Without a URL there is no kubelet checker. */
  readonly kubeletHealthzUrl?: string;
  /** Without a check there is no containerd checker. */
  readonly containerdCheck?: ContainerdCheck;
  readonly node: () => V1Node | undefined;
  /** The agent's Node informer: each change of the Node checks at once. */
  readonly nodes?: WatchSource<V1Node>;
  readonly systemd: Systemd;
  readonly events: NodeEvents;
  /** Writes the Node status when a lost InternalIP is restored; without it, it is not. */
  readonly client?: KubeClient;
  readonly hostAddresses?: () => string[];
  readonly intervalMs?: number;
  readonly maxFailureDurationMs?: number;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly healthMetrics?: HealthCheckMetrics;
}

export function healthCheckers(o: HealthCheckControllerOptions): HealthChecker[] {
  const log = o.log ?? silentLogger;
  const deps = {
    systemd: o.systemd,
    events: o.events,
    clock: o.clock ?? realClock,
    metrics: o.healthMetrics,
  };
  const checkers: HealthChecker[] = [];
  if (o.kubeletHealthzUrl !== undefined) {
    checkers.push(
      new KubeletHealthChecker({
        ...deps,
        log: log.child({ logger: 'kubelet' }),
        probe: kubeletHealthzProbe(o.kubeletHealthzUrl),
        writeStatus: o.client ? nodeStatusWriter(o.client) : undefined,
        hostAddresses: o.hostAddresses,
        maxFailureDurationMs: o.maxFailureDurationMs,
      }),
    );
  }
  if (o.containerdCheck) {
    checkers.push(
      new ContainerdHealthChecker({
        ...deps,
        log: log.child({ logger: 'containerd' }),
        check: o.containerdCheck,
        maxFailureDurationMs: o.maxFailureDurationMs,
      }),
    );
  }
  return checkers;
}

/** One round: every checker, in parallel; one error naming each that failed. */
export async function runHealthChecks(
  checkers: readonly HealthChecker[],
  node: V1Node | undefined,
  signal: AbortSignal,
): Promise<void> {
  const results = await Promise.allSettled(checkers.map((c) => c.check(node, signal)));
  const errors = results.flatMap((r, i) =>
    r.status === 'rejected' ? [`${checkers[i]!.name}: ${(r.reason as Error)?.message ?? r.reason}`] : [],
  );
  if (errors.length > 0) throw new Error(`health checks failed: ${errors.join('; ')}`);
}

/** Starts checking at once, and again whenever the Node changes; undefined when there is nothing to check. */
export function addHealthCheckController(
  o: HealthCheckControllerOptions,
  signal: AbortSignal,
): RunningController | undefined {
  const checkers = healthCheckers(o);
  if (checkers.length === 0) return undefined;
  const interval = o.intervalMs ?? HEALTH_CHECK_INTERVAL_MS;
  const builder = newController(HEALTH_CHECK_CONTROLLER_NAME, {
    clock: o.clock,
    log: o.log ?? silentLogger,
    metrics: o.metrics,
  }).enqueueOnStart(HEALTH_CHECK_KEY);
  // a Node change (Ready flapping, lost addresses) is checked at once, not up to 30 s later
  if (o.nodes) builder.watches(o.nodes, () => HEALTH_CHECK_KEY, undefined, { waitForSync: false });
  return builder.start(signal, async (_key, ctx) => {
    await runHealthChecks(checkers, o.node(), ctx.signal);
    return { requeueAfterMs: interval };
  });
}
