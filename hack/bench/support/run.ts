/**
 * What every benchmark here does around its measurements: progress on stderr and the report on
 * stdout, cleanup steps that run once in reverse order (also on SIGINT/SIGTERM), and the few
 * statistics the reports use.
 */

/** Epoch milliseconds with sub-millisecond resolution (monotonic within this process). */
export const now = (): number => performance.timeOrigin + performance.now();
const started = now();

export const progress = (msg: string): void => {
  process.stderr.write(`[${((now() - started) / 1000).toFixed(1)}s] ${msg}\n`);
};
export const print = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};

/** Nearest-rank quantile: the smallest value with at least q of the samples at or below it. */
export function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
export const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
export const ms = (x: number): string => (Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x.toFixed(1)) : '-');
export const mib = (kib: number): string => (kib / 1024).toFixed(1);
export const thousands = (n: number): string => n.toLocaleString('en-US');

interface CleanupStep {
  readonly what: string;
  readonly run: () => Promise<unknown> | unknown;
}

/** Cleanup steps, run once in reverse order (also on SIGINT/SIGTERM, then the process exits 130). */
export class Cleanups {
  private readonly steps: CleanupStep[] = [];
  private running: Promise<void> | undefined;

  constructor() {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        progress(`${signal}: cleaning up`);
        void this.run().finally(() => process.exit(130));
      });
    }
  }

  /** Registers a step; the returned function runs it now (once) and unregisters it. */
  push(what: string, run: () => Promise<unknown> | unknown): () => Promise<void> {
    const step = { what, run };
    this.steps.push(step);
    return async () => {
      const i = this.steps.indexOf(step);
      if (i < 0) return;
      this.steps.splice(i, 1);
      await this.runStep(step);
    };
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.splice(0).reverse()) await this.runStep(step);
    })();
    return this.running;
  }

  private async runStep(step: CleanupStep): Promise<void> {
    const t = now();
    try {
      await step.run();
    } catch (e) {
      progress(`cleanup "${step.what}" failed: ${(e as Error).message}`);
    }
    if (now() - t > 2000) progress(`cleanup "${step.what}" took ${((now() - t) / 1000).toFixed(1)} s`);
  }
}

/** Polls `check` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function until<T>(
  what: string,
  timeoutMs: number,
  check: () => T | undefined | Promise<T | undefined>,
  intervalMs = 250,
): Promise<T> {
  const deadline = now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
