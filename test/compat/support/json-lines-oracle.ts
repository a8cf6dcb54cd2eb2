/**
 * A Go oracle as a long-lived child process: built once per machine by its build script (a no-op
 * when the cache is complete; the last stdout line is the cache dir) and asked questions as JSON
 * lines, answered in order. The protocol is the one of hack/gardener-oracle/main.go, which
 * hack/gardener-oracle-150 shares.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { requireGo } from '../../support/go-binary.js';

/** Building cold compiles Gardener and its dependencies: minutes on two busy cores. */
export const ORACLE_BUILD_TIMEOUT_MS = 20 * 60_000;

/** Where an oracle comes from: its build script and the binary it puts into the cache dir. */
export interface OracleBuild {
  readonly script: string;
  readonly binary: string;
}

/**
 * Runs the build script and returns the binary. Without Go the script fails saying how to get it,
 * and so does this.
 */
export function buildGoOracle({ script, binary }: OracleBuild): string {
  requireGo();
  let out: string;
  try {
    out = execFileSync('bash', [script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    });
  } catch (e) {
    throw new Error(
      `building the ${binary} failed (${script}; its message is above): ${(e as Error).message}`,
    );
  }
  const dir = out.trim().split('\n').pop() ?? '';
  return join(dir, binary);
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
    oracleName = 'gardener-oracle',
  ) {
    super(`${oracleName} ${op}: ${message}`);
    this.name = 'OracleError';
  }
}

export class JsonLinesOracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private readonly name: string;
  private nextId = 1;
  private exited: Error | undefined;
  private stderr = '';

  constructor(binary: string, name = 'gardener-oracle') {
    this.name = name;
    this.child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-8192);
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    this.child.on('exit', (code, signal) => {
      this.exited = new Error(`${this.name} exited (${signal ?? code}): ${this.stderr.trim()}`);
      for (const p of this.pending.values()) p.reject(this.exited);
      this.pending.clear();
    });
  }

  private onLine(line: string): void {
    const response = JSON.parse(line) as { id: number; result?: unknown; error?: string };
    const pending = this.pending.get(response.id);
    if (!pending) return;
    this.pending.delete(response.id);
    if (response.error !== undefined) pending.reject(new OracleError(pending.op, response.error, this.name));
    else pending.resolve(response.result);
  }

  /** Asks one question; the answer is the op's result (see the oracle's ops.go). */
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

/** One oracle process per run, built and started on first use, stopped by the root hooks. */
export class SharedOracle {
  private current: JsonLinesOracle | undefined;

  constructor(private readonly source: OracleBuild) {}

  /** Runs the build script (a no-op when the cache is complete) and returns the binary. */
  build(): string {
    return buildGoOracle(this.source);
  }

  get(): JsonLinesOracle {
    this.current ??= new JsonLinesOracle(this.build(), this.source.binary);
    return this.current;
  }

  async stop(): Promise<void> {
    const o = this.current;
    this.current = undefined;
    await o?.stop();
  }
}
