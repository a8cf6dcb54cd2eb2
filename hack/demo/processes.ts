/**
 * Child processes of the demo, each under hack/envtest's supervisor: the supervisor puts the
 * process into its own process group, forwards SIGTERM/SIGINT to it, SIGKILLs what is left after
 * the grace period, and takes the whole group down when the demo dies, even by SIGKILL. So
 * stopping the demo, however it ends, leaves no agent or controller-manager behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { envtestBinaries } from '../landscape/envtest.js';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface SupervisedProcess {
  readonly name: string;
  /** The supervisor's pid (the process itself runs in a group the supervisor leads). */
  readonly pid: number;
  readonly exited: Promise<Exit>;
  readonly running: boolean;
  /** SIGTERM (forwarded to the process group), SIGKILL of the supervisor after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<Exit>;
}

/** Every supervisor still running: the last-resort cleanup SIGKILLs them (their groups follow). */
const live = new Set<ChildProcess>();

export function killAllNow(): void {
  for (const child of live) child.kill('SIGKILL');
}

export interface StartOptions {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** stdout and stderr are appended to this file. */
  readonly logFile: string;
  /** Between the forwarded SIGTERM and the SIGKILL of the group. */
  readonly graceSeconds?: number;
}

export function startSupervised(o: StartOptions): SupervisedProcess {
  const supervisor = join(envtestBinaries(), 'supervisor');
  const log = openSync(o.logFile, 'a');
  const child = spawn(supervisor, [`--grace=${o.graceSeconds ?? 5}s`, '--', o.command, ...o.args], {
    cwd: o.cwd,
    env: o.env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  live.add(child);
  let running = true;
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      live.delete(child);
      resolve({ code, signal });
    });
    child.once('error', () => {
      running = false;
      live.delete(child);
      resolve({ code: 127, signal: null });
    });
  });
  return {
    name: o.name,
    pid: child.pid ?? -1,
    exited,
    get running() {
      return running;
    },
    async stop(timeoutMs = 15_000) {
      if (!running) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}
