/**
 * Time as an interface, so queues, backoff, leases and health checks can be tested without
 * waiting. Production uses the real clock; tests advance a fake one.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimer(callback: () => void, delayMs: number): TimerHandle;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, delayMs) {
    const t = setTimeout(callback, Math.max(0, delayMs));
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  },
};

/** Resolves after `ms` on the given clock, or rejects when the signal aborts. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface FakeTimer {
  due: number;
  seq: number;
  callback: () => void;
  cancelled: boolean;
}

/** A clock that moves only when told to; timers fire in due order during `advance`. */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: FakeTimer[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const timer: FakeTimer = {
      due: this.current + Math.max(0, delayMs),
      seq: this.seq++,
      callback,
      cancelled: false,
    };
    this.timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  }

  pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward, firing every timer that falls due, in order; lets promises settle between them. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await settle();
      const next = this.timers
        .filter((t) => !t.cancelled && t.due <= target)
        .sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (!next) break;
      this.current = next.due;
      next.cancelled = true;
      next.callback();
    }
    this.timers = this.timers.filter((t) => !t.cancelled);
    this.current = target;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
