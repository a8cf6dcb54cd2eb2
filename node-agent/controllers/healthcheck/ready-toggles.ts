/**
 * NotReady→Ready transitions of the Node in a sliding window (gardener v1.91.4
 * pkg/nodeagent/controller/healthcheck/kubelet.go, N-TV-11): a kubelet that keeps flapping is worth
 * a warning even while each single check passes.
 */
import type { Clock } from '../../../runtime/clock.js';

export const TOGGLE_WINDOW_MS = 10 * 60_000;
export const TOGGLE_THRESHOLD = 5;

export class ReadyToggles {
  private readonly times: number[] = [];

  constructor(
    private readonly clock: Clock,
    readonly windowMs = TOGGLE_WINDOW_MS,
    readonly threshold = TOGGLE_THRESHOLD,
  ) {}

  get length(): number {
    return this.times.length;
  }

  /** Records a transition to Ready; true when the window now holds at least `threshold` of them. */
  toggle(): boolean {
    const now = this.clock.now();
    // entries are in time order: the newest one outside the window ends everything before it too
    for (let i = this.times.length - 1; i >= 0; i--) {
      if (now - this.times[i]! > this.windowMs) {
        this.times.splice(0, i + 1);
        break;
      }
    }
    this.times.push(now);
    return this.times.length >= this.threshold;
  }

  /** Takes back the last toggle (upstream does so when acting on it failed). */
  revert(): void {
    this.times.pop();
  }
}
