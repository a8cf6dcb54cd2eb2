/** Polling for tests against real servers: what they wait for happens asynchronously. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `check` every `intervalMs` until it returns a truthy value (returned), treating a thrown
 * error as "not yet"; fails naming `what` after `timeoutMs`.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(check)
      .catch(() => undefined);
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/**
 * Runs `assertions` until they pass; on timeout rethrows their last failure, so the test report
 * says what was still wrong rather than only that time ran out.
 */
export async function eventuallyPasses(
  assertions: () => unknown | Promise<unknown>,
  timeoutMs = 30_000,
  intervalMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await assertions();
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
    }
    await sleep(intervalMs);
  }
}
