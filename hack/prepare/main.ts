/**
 * Prepares a machine for the tests, before any test timer starts (`npm test` runs it as `pretest`,
 * `npm run test:unit` with `--unit`): checks the Debian packages of hack/prepare/prerequisites.ts
 * (installs the missing ones when it runs as root with apt, otherwise stops at once with one message
 * that lists them), checks Go, then runs every cold build in order, each of which is a no-op when
 * its cache is complete. A build that runs long shows its elapsed time; one that waits for another
 * build's lock says who holds it. Builds that only late tests need are started in the background
 * instead, and the tests start (hack/prepare/background.ts). Progress goes to stderr; exit 1 when something is missing or a
 * build fails.
 *
 *   node --import tsx hack/prepare/main.ts [--unit]
 *   node --import tsx hack/prepare/main.ts --background BUILDS_JSON   (started by background.ts)
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startLateBuilds } from './background.js';
import { decide } from './decide.js';
import { describeWait, formatDuration, lockWaitOf } from './lock-holder.js';
import { BUILDS, GO_MINIMUM, PACKAGES } from './prerequisites.js';
import type { Build, Package } from './registry.js';

const ROOT = resolve(import.meta.dirname, '../..');

export interface PrepareOptions {
  readonly builds: readonly Build[];
  readonly packages: readonly Package[];
  readonly goMinimum: string;
  readonly log: (line: string) => void;
  /** How often a running build is checked for a lock wait and for silence. */
  readonly pollMs?: number;
  /** A build silent for this long gets an "still running" line with its elapsed time. */
  readonly quietMs?: number;
  readonly cwd?: string;
  /** Overrides for tests: whether this process may install packages, and how. */
  readonly root?: boolean;
  readonly apt?: boolean;
  readonly install?: (packages: readonly string[]) => void;
  readonly aptUpdate?: () => void;
  /** Where a build's stderr goes (default: this process's stderr). */
  readonly forward?: (chunk: Buffer) => void;
}

export interface BuildOutcome {
  readonly name: string;
  /** The last line the build printed on stdout: its cache directory. */
  readonly dir: string;
  readonly seconds: number;
}

/** Whether `command` is runnable from PATH (or from the sbin directories root has on PATH). */
export function onPath(command: string, path = process.env.PATH ?? ''): boolean {
  for (const dir of [...path.split(delimiter), '/usr/sbin', '/sbin']) {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      // next directory
    }
  }
  return false;
}

function goFound(): string | undefined {
  const r = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

const APT_ENV = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };

function aptUpdate(): void {
  execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 2, 2], env: APT_ENV });
}

function aptInstall(packages: readonly string[]): void {
  aptUpdate();
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
    stdio: ['ignore', 2, 2],
    env: APT_ENV,
  });
}

export function argvOf(build: Build): string[] {
  const [script, ...args] = build.argv;
  if (script!.endsWith('.sh')) return ['bash', script!, ...args];
  if (script!.endsWith('.ts')) return [process.execPath, '--import', 'tsx', script!, ...args];
  return [process.execPath, script!, ...args];
}

/** Runs one build, forwarding its stderr, and returns the last line of its stdout. */
function runBuild(build: Build, options: PrepareOptions): Promise<BuildOutcome> {
  const pollMs = options.pollMs ?? 5000;
  const quietMs = options.quietMs ?? 30_000;
  const started = Date.now();
  const [file, ...args] = argvOf(build);
  // its own process group, so an interrupted prepare takes the compilers down too
  const child: ChildProcess = spawn(file!, args, {
    cwd: options.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let stdout = '';
  let lastOutput = Date.now();
  let lastWait = '';
  let announced = false;
  const elapsed = () => formatDuration((Date.now() - started) / 1000);
  const announce = () => {
    if (!announced) options.log(`prepare: ${build.name}: ${build.why} ...`);
    announced = true;
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    announce();
    lastOutput = Date.now();
    (options.forward ?? ((c: Buffer) => process.stderr.write(c)))(chunk);
  });
  const timer = setInterval(() => {
    announce();
    const wait = lockWaitOf(child.pid!);
    const waitText = wait ? describeWait(wait) : '';
    if (waitText && waitText !== lastWait) {
      options.log(`prepare: ${build.name}: ${waitText} (${elapsed()} so far)`);
      lastOutput = Date.now();
    } else if (Date.now() - lastOutput >= quietMs) {
      options.log(
        `prepare: ${build.name}: ${wait ? 'still waiting for the lock' : 'still running'} (${elapsed()})`,
      );
      lastOutput = Date.now();
    }
    lastWait = waitText;
  }, pollMs);
  return new Promise((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearInterval(timer);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      const seconds = (Date.now() - started) / 1000;
      const dir = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0) {
        reject(
          new Error(
            `${build.name} (${build.argv.join(' ')}) failed after ${elapsed()}: exit ${code ?? signal}`,
          ),
        );
        return;
      }
      if (announced || seconds >= 2) options.log(`prepare: ${build.name}: ready in ${elapsed()}: ${dir}`);
      resolvePromise({ name: build.name, dir, seconds });
    });
  });
}

/** Checks and installs packages, checks Go, then runs the builds; throws with the message to show. */
export async function prepare(options: PrepareOptions): Promise<BuildOutcome[]> {
  const wanted = [...options.packages, ...options.builds.flatMap((b) => b.packages)];
  const missing = () =>
    wanted.filter((p, i) => !onPath(p.command) && wanted.findIndex((q) => q.deb === p.deb) === i);
  const goNeeded = options.builds.some((b) => b.go);
  const root = options.root ?? process.getuid?.() === 0;
  const plan = decide({
    missing: missing(),
    go: { needed: goNeeded, found: goNeeded ? goFound() : undefined, minimum: options.goMinimum },
    root,
    apt: options.apt ?? onPath('apt-get'),
  });
  if (plan.action === 'stop') throw new Error(plan.message);
  if (plan.action === 'install') {
    options.log(`prepare: installing Debian packages: ${plan.packages.join(' ')}`);
    (options.install ?? aptInstall)(plan.packages);
    const still = missing();
    if (still.length > 0)
      throw new Error(
        `installing ${plan.packages.join(' ')} left ${still.map((p) => p.command).join(', ')} missing`,
      );
  }
  const outcomes: BuildOutcome[] = [];
  for (const build of options.builds) {
    try {
      outcomes.push(await runBuild(build, options));
    } catch (e) {
      if (!(build.retryAfterAptUpdate && root && (options.apt ?? onPath('apt-get')))) throw e;
      options.log(`prepare: ${build.name}: ${(e as Error).message}; apt-get update, then once more`);
      (options.aptUpdate ?? aptUpdate)();
      outcomes.push(await runBuild(build, options));
    }
  }
  return outcomes;
}

/** `--background BUILDS_JSON`: the detached process of hack/prepare/background.ts, one prepare per build at once. */
async function runInBackground(builds: readonly Build[], log: (line: string) => void): Promise<void> {
  const stamped = (line: string) => log(`${new Date().toISOString()} ${line}`);
  const results = await Promise.allSettled(
    builds.map((b) => prepare({ builds: [b], packages: [], goMinimum: GO_MINIMUM, log: stamped })),
  );
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  for (const f of failed) stamped(`prepare: ${(f.reason as Error).message}`);
  if (failed.length > 0) process.exitCode = 1;
  else stamped('prepare: background builds ready');
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: { unit: { type: 'boolean', default: false }, background: { type: 'string' } },
  });
  const started = Date.now();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    if (values.background !== undefined) {
      await runInBackground(JSON.parse(values.background) as Build[], log);
    } else {
      const wanted = BUILDS.filter((b) => b.unit || !values.unit);
      const outcomes = await prepare({
        builds: wanted.filter((b) => !b.late),
        // the late builds' packages are installed with the others, before anything runs
        packages: [...PACKAGES, ...wanted.filter((b) => b.late).flatMap((b) => b.packages)],
        goMinimum: GO_MINIMUM,
        log,
      });
      const late = await startLateBuilds(
        wanted.filter((b) => b.late),
        { log },
      );
      const seconds = (Date.now() - started) / 1000;
      if (seconds >= 2 || late === 'background')
        log(`prepare: ${outcomes.length} builds ready in ${formatDuration(seconds)}; the tests start now`);
    }
  } catch (e) {
    log(`prepare: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
