/**
 * The part the kubelet and containerd checkers share (gardener v1.91.4
 * pkg/nodeagent/controller/healthcheck/containerd.go,
 * pkg/nodeagent/controller/healthcheck/kubelet.go): report the first failure, tolerate it for a
 * minute, then restart the unit through systemd and start counting afresh; report the recovery.
 * Never more than a restart: rebooting is left to people.
 */
import type { V1Node } from '@kubernetes/client-node';
import { formatGoDuration } from '../../../api/index.js';
import { type CheckerDeps, nodeEvent } from './checker.js';
import { SustainedFailure } from './sustained-failure.js';

export interface FailureMessages {
  readonly first: (error: string) => string;
  readonly restarting: (maxFailureDuration: string, error: string) => string;
  readonly healthy: string;
  /** Wraps a failed restart (upstream words it per checker). */
  readonly restartFailed: (error: Error) => Error;
}

export class RestartOnSustainedFailure {
  private readonly failure: SustainedFailure;

  constructor(
    private readonly component: string,
    private readonly unit: string,
    private readonly messages: FailureMessages,
    private readonly deps: CheckerDeps,
    maxFailureDurationMs?: number,
  ) {
    this.failure = new SustainedFailure(deps.clock, maxFailureDurationMs);
  }

  healthy(node: V1Node | undefined): void {
    if (!this.failure.reset()) return;
    this.deps.log.info(this.messages.healthy);
    nodeEvent(this.deps, node, 'Normal', this.component, this.messages.healthy);
  }

  /** Rejects only when the restart it decided on failed. */
  async unhealthy(node: V1Node | undefined, error: string): Promise<void> {
    const { deps, component, messages } = this;
    deps.metrics?.healthCheckFailures.inc({ component });
    const verdict = this.failure.failed();
    if (verdict.first) {
      const message = messages.first(error);
      deps.log.error({ error }, message);
      nodeEvent(deps, node, 'Warning', component, message);
    }
    if (!verdict.sustained) return;
    const message = messages.restarting(formatGoDuration(this.failure.maxFailureDurationMs * 1e6), error);
    deps.log.error({ error, unit: this.unit }, message);
    nodeEvent(deps, node, 'Warning', component, message);
    try {
      await deps.systemd.restart(this.unit);
    } catch (e) {
      throw messages.restartFailed(e instanceof Error ? e : new Error(String(e)));
    }
    deps.metrics?.healthCheckRestarts.inc({ component });
    // a fresh minute for the restarted unit to come up before it could be restarted again
    this.failure.reset();
  }
}
