/** Waiting in the demo: every wait ends early when the demo is interrupted (the signal aborts). */
export class Interrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'Interrupted';
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Interrupted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Interrupted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Polls `check` until it returns a value other than undefined/false (returned); a thrown error
 * counts as "not yet" and is named in the timeout error.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  o: { timeoutMs: number; intervalMs?: number; signal?: AbortSignal },
): Promise<T> {
  const deadline = Date.now() + o.timeoutMs;
  let last: unknown;
  for (;;) {
    if (o.signal?.aborted) throw new Interrupted();
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${Math.round(o.timeoutMs / 1000)} s waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
      );
    await sleep(o.intervalMs ?? 250, o.signal);
  }
}
