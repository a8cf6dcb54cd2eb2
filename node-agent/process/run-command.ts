/**
 * Runs an external program (systemctl, ctr) without a shell, with a deadline. On the deadline the
 * whole process group is killed, so a helper that forked (a hung `ctr` pull, a script's `sleep`)
 * cannot keep the agent waiting on its pipes.
 */
import { spawn } from 'node:child_process';

export interface RunOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly timeoutMs?: number;
  /** Aborting kills the process group and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

export interface RunResult {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

const MAX_OUTPUT = 64 * 1024;

export function runCommand(
  file: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    const child = spawn(file, args, {
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    // a decoding stream keeps a character cut between two chunks whole
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk;
    });
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_OUTPUT) stderr += chunk;
    });
    let settled = false;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const onAbort = () => {
      killGroup();
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      reject(options.signal?.reason);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (result: RunResult) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      resolve(result);
    };
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            killGroup();
            settle({ exitCode: null, signal: 'SIGKILL', stdout, stderr, timedOut: true });
          }, options.timeoutMs);
    child.on('error', (e) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (timer) clearTimeout(timer);
      if (!settled) {
        settled = true;
        reject(e);
      }
    });
    child.on('close', (exitCode, signal) => settle({ exitCode, signal, stdout, stderr, timedOut: false }));
  });
}

/** The reason a finished command failed, for error messages: stderr if it said something. */
export function failureText(result: RunResult): string {
  const said = result.stderr.trim() || result.stdout.trim();
  const how = result.exitCode !== null ? `exit code ${result.exitCode}` : `signal ${result.signal}`;
  return said ? `${how}: ${said}` : how;
}
