/**
 * The containerd checker (gardener v1.91.4 pkg/nodeagent/controller/healthcheck/containerd.go):
 * containerd answers its Version() call, or it is restarted once it has not for a minute.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { CheckerDeps, HealthChecker } from './checker.js';
import { RestartOnSustainedFailure } from './restart-on-sustained-failure.js';

export const CONTAINERD_SERVICE = 'containerd.service';

/** Resolves when containerd answered; rejects with why not. */
export type ContainerdCheck = (signal: AbortSignal) => Promise<void>;

/**
 * The probe itself could not run (no `ctr` binary, ...): that says nothing about containerd, and
 * restarting containerd would not fix it, so it is reported as an error, never as a failure.
 */
export class ProbeUnavailableError extends Error {
  override readonly name = 'ProbeUnavailableError';
}

export interface ContainerdCheckerOptions extends CheckerDeps {
  readonly check: ContainerdCheck;
  readonly maxFailureDurationMs?: number;
}

export class ContainerdHealthChecker implements HealthChecker {
  readonly name = 'containerd';
  private readonly restarter: RestartOnSustainedFailure;

  constructor(private readonly o: ContainerdCheckerOptions) {
    this.restarter = new RestartOnSustainedFailure(
      this.name,
      CONTAINERD_SERVICE,
      {
        first: (error) => `Containerd is unhealthy: ${error}`,
        restarting: (max, error) => `Containerd is unhealthy for more than ${max}, restarting it: ${error}`,
        healthy: 'Containerd is healthy',
        restartFailed: (e) => new Error(`failed restarting containerd: ${e.message}`, { cause: e }),
      },
      o,
      o.maxFailureDurationMs,
    );
  }

  async check(node: V1Node | undefined, signal: AbortSignal): Promise<void> {
    try {
      await this.o.check(signal);
    } catch (e) {
      if (e instanceof ProbeUnavailableError || signal.aborted) throw e;
      await this.restarter.unhealthy(node, e instanceof Error ? e.message : String(e));
      return;
    }
    this.restarter.healthy(node);
  }
}
