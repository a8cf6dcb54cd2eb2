/** Exponential backoff with a cap and optional jitter, for retries that must never give up. */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
  /** 0..1: the delay is spread over [d*(1-jitter), d]. */
  readonly jitter?: number;
  readonly random?: () => number;
}

export class Backoff {
  private attempts = 0;

  constructor(private readonly options: BackoffOptions) {}

  /** The delay before the next attempt; every call doubles it until the cap. */
  next(): number {
    const { baseMs, maxMs, jitter = 0, random = Math.random } = this.options;
    const exp = Math.min(maxMs, baseMs * 2 ** Math.min(this.attempts, 52));
    this.attempts++;
    return jitter > 0 ? exp * (1 - jitter * random()) : exp;
  }

  reset(): void {
    this.attempts = 0;
  }

  get failures(): number {
    return this.attempts;
  }
}
