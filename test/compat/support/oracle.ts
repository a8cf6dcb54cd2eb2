/**
 * The gardener-oracle (hack/gardener-oracle): Gardener's own code as a long-lived child process,
 * built once per machine by its build script and asked questions as JSON lines. One process
 * serves the whole mocha run; requests are answered in order.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { requireGo } from '../../../hack/prepare/go-binary.js';

const BUILD_SCRIPT = resolve(import.meta.dirname, '../../../hack/gardener-oracle/build.sh');

/** Building cold compiles Gardener and its dependencies: minutes on two busy cores. */
export const ORACLE_BUILD_TIMEOUT_MS = 20 * 60_000;

/**
 * Runs the build script (a no-op when the cache is complete) and returns the binary. Without Go
 * the script fails saying how to get it, and so does this.
 */
export function buildOracle(): string {
  // Says how to get Go when it is missing (the build script says the same, on stderr).
  requireGo();
  let out: string;
  try {
    out = execFileSync('bash', [BUILD_SCRIPT], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    });
  } catch (e) {
    throw new Error(
      `building the gardener-oracle failed (${BUILD_SCRIPT}; its message is above): ${(e as Error).message}`,
    );
  }
  const dir = out.trim().split('\n').pop() ?? '';
  return join(dir, 'gardener-oracle');
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly op: string;
}

export class OracleError extends Error {
  constructor(
    readonly op: string,
    message: string,
  ) {
    super(`gardener-oracle ${op}: ${message}`);
    this.name = 'OracleError';
  }
}

export class Oracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private exited: Error | undefined;
  private stderr = '';

  constructor(binary: string) {
    this.child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-8192);
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    this.child.on('exit', (code, signal) => {
      this.exited = new Error(`gardener-oracle exited (${signal ?? code}): ${this.stderr.trim()}`);
      for (const p of this.pending.values()) p.reject(this.exited);
      this.pending.clear();
    });
  }

  private onLine(line: string): void {
    const response = JSON.parse(line) as { id: number; result?: unknown; error?: string };
    const pending = this.pending.get(response.id);
    if (!pending) return;
    this.pending.delete(response.id);
    if (response.error !== undefined) pending.reject(new OracleError(pending.op, response.error));
    else pending.resolve(response.result);
  }

  /** Asks one question; the answer is the op's result (see hack/gardener-oracle/ops.go). */
  ask<T>(op: string, input: unknown): Promise<T> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, op });
      this.child.stdin.write(`${JSON.stringify({ id, op, input })}\n`);
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const done = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    await done;
  }
}

let shared: Oracle | undefined;

/** The run's oracle, built and started on first use. */
export function oracle(): Oracle {
  shared ??= new Oracle(buildOracle());
  return shared;
}

export async function stopOracle(): Promise<void> {
  const o = shared;
  shared = undefined;
  await o?.stop();
}
