/**
 * Cold builds that only late tests need (`late` in hack/prepare/prerequisites.ts) run in the
 * background while the earlier tests run. On a fresh machine the v1.150.0 oracle alone is minutes of
 * compiling that the tests before test/compat/v1.150 would otherwise wait for, and the real node's
 * debootstrap is mostly downloads; most of the test suite waits on timers and child processes, so
 * the builds take the spare CPU (docs/install.md, "Cold builds").
 *
 * The tests that need such a build run its script themselves in a `before` hook with a long timeout
 * (test/compat/support/use-oracle-150.ts, hack/real-node/cache.ts): a build still running holds its
 * lock, and the script waits for it; a build that failed in the background is built again there,
 * with its messages in the test output. So a background build never hides a failure, it only moves
 * the wait.
 *
 * The background process is this same prepare (hack/prepare/main.ts `--background`), detached in
 * its own session so that the end of `npm test`'s process group does not stop it halfway; its
 * output goes to a log file. A warm cache finishes within the grace period and nothing is said.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Build } from './registry.js';

const MAIN = resolve(import.meta.dirname, 'main.ts');

export interface LateBuildOptions {
  readonly log: (line: string) => void;
  /** How long to wait for the builds to finish before leaving them to the background. */
  readonly graceMs?: number;
  readonly logFile?: string;
  readonly cwd?: string;
}

/** Where the background builds write: beside the cold builds' caches. */
export function backgroundLogFile(): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'gardener-osc', 'prepare-background.log');
}

/** The last lines of a log, for a message. */
function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts the late builds in one detached prepare process. Resolves `ready` when they finished within
 * the grace period (a warm cache), `background` when they still run; rejects with the log's tail when
 * they failed within it (a missing toolchain shows at once, not in some later test).
 */
export async function startLateBuilds(
  builds: readonly Build[],
  options: LateBuildOptions,
): Promise<'ready' | 'background'> {
  if (builds.length === 0) return 'ready';
  const logFile = options.logFile ?? backgroundLogFile();
  mkdirSync(dirname(logFile), { recursive: true });
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--background', JSON.stringify(builds)], {
    cwd: options.cwd,
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  closeSync(fd);
  const names = builds.map((b) => b.name).join(', ');
  const exit = new Promise<number | null>((resolveExit, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolveExit(code));
  });
  const grace = new Promise<'grace'>((r) => setTimeout(r, options.graceMs ?? 3000, 'grace').unref());
  const first = await Promise.race([exit, grace]);
  if (first === 'grace') {
    child.unref();
    options.log(
      `prepare: ${names}: building in the background (pid ${child.pid}, log ${logFile}); the tests that need them wait for them`,
    );
    return 'background';
  }
  if (first !== 0)
    throw new Error(`background builds ${names} failed (exit ${first}; log ${logFile}):\n${tail(logFile)}`);
  return 'ready';
}
