/**
 * How long a check has been failing (`maxFailureDuration = 1m` in gardener v1.91.4
 * pkg/nodeagent/controller/healthcheck/healthcheck.go). A failure is tolerated until it has lasted
 * that long, so a unit that is merely restarting (an OSC apply, an operator) is not restarted on
 * top. Time comes from the injected clock only, never the wall clock (upstream's gardener v1.91.4
 * pkg/nodeagent/controller/healthcheck/kubelet.go mixes both), so tests can step through a minute
 * in microseconds.
 */
import type { Clock } from '../../../runtime/clock.js';

export const MAX_FAILURE_DURATION_MS = 60_000;

export interface FailureVerdict {
  /** This is the first failure after a healthy check (or the start). */
  readonly first: boolean;
  /** It has been failing for at least the maximum duration: time to restart. */
  readonly sustained: boolean;
}

export class SustainedFailure {
  private firstFailureAt: number | undefined;

  constructor(
    private readonly clock: Clock,
    readonly maxFailureDurationMs = MAX_FAILURE_DURATION_MS,
  ) {}

  get failing(): boolean {
    return this.firstFailureAt !== undefined;
  }

  failed(): FailureVerdict {
    const now = this.clock.now();
    const first = this.firstFailureAt === undefined;
    if (first) this.firstFailureAt = now;
    // |now - first|: a clock stepped backwards must not postpone the restart forever
    const elapsed = Math.abs(now - this.firstFailureAt!);
    return { first, sustained: elapsed >= this.maxFailureDurationMs };
  }

  /** Forgets the failure (after a successful check or a successful restart); true if it was failing. */
  reset(): boolean {
    const was = this.failing;
    this.firstFailureAt = undefined;
    return was;
  }
}
