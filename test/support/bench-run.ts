/**
 * Runs a benchmark of hack/bench/ end to end at its `--quick` size, as its own process (each one is
 * a script with its own exit code and cleanup), so that `npm test` notices when one no longer runs.
 * The tests assert only that it completes and prints its figures, never a timing.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { QUICK_NOTICE } from '../../hack/bench/support/command-line.js';

const ROOT = join(import.meta.dirname, '../..');

export interface BenchRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `node --import tsx hack/bench/<script> --quick ...args`; on `timeoutMs` it is sent SIGTERM (the
 * benchmarks clean up on it) and, 30 s later, SIGKILL.
 */
export function runQuickBench(script: string, args: readonly string[], timeoutMs: number): Promise<BenchRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' };
  // every benchmark starts its own API servers: their audit logs are part of the figures
  delete env.TEST_KUBECONFIG;
  delete env.TEST_SHOOT_KUBECONFIG;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'hack/bench', script), '--quick', ...args],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    let kill: NodeJS.Timeout | undefined;
    const term = setTimeout(() => {
      child.kill('SIGTERM');
      kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
    }, timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(term);
      clearTimeout(kill);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface QuickRunSpec {
  readonly script: string;
  readonly args?: readonly string[];
  readonly timeoutMs: number;
}

/**
 * Starts the quick runs of a suite side by side, at most `concurrency` at once, in the order given,
 * and returns a lookup of each run's result by its key. A quick run mostly waits (API servers
 * starting, settle windows, idle samples), so side by side they cost the suite a fraction of their
 * sum; their figures mean nothing at this size, running together or not. A suite calls this in its
 * `before` hook and each test awaits its own run.
 */
export function startQuickBenches<K extends string>(
  specs: Record<K, QuickRunSpec>,
  concurrency: number,
): (key: K) => Promise<BenchRun> {
  const runs = new Map<K, Promise<BenchRun>>();
  let slots = concurrency;
  const waiting: (() => void)[] = [];
  const slot = (): Promise<void> => {
    if (slots === 0) return new Promise((resolve) => waiting.push(resolve));
    slots--;
    return Promise.resolve();
  };
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else slots++;
  };
  for (const key of Object.keys(specs) as K[]) {
    const { script, args = [], timeoutMs } = specs[key];
    const run = slot().then(() => runQuickBench(script, args, timeoutMs).finally(release));
    // awaited by its test; a test that never runs (e.g. --grep) leaves no unhandled rejection
    run.catch(() => undefined);
    runs.set(key, run);
  }
  return (key) => runs.get(key)!;
}

/** The failure message of a run: its output's tails. */
export function describeRun(run: BenchRun): string {
  const tail = (text: string) => text.split('\n').slice(-40).join('\n');
  return `exit code ${run.code}\n--- stdout (tail)\n${tail(run.stdout)}\n--- stderr (tail)\n${tail(run.stderr)}`;
}

export { QUICK_NOTICE };
