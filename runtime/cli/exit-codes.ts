/**
 * Exit codes of every command of both executables (gardener-osc and gardener-node-agent): 0 done,
 * 1 failed while working, 2 the input or usage was wrong.
 */
export const EXIT = { ok: 0, failed: 1, badInput: 2 } as const;

/** An error caused by what the user gave us; the CLI prints it and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
