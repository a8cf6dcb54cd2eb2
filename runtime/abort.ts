/**
 * Waiting for a promise no longer than a signal allows: the wait ends when the signal aborts, while
 * the promise itself runs on (whoever started it cleans up after it).
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  reason: (signal: AbortSignal) => unknown = (s) => s.reason,
): Promise<T> {
  if (signal.aborted) return Promise.reject(reason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(reason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Resolves when the signal aborts (at once if it already has): the end of a controller's life. */
export function whenAborted(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
