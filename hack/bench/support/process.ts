/** Child processes as the benchmarks measure them: RSS and CPU from /proc, stopping with a grace period. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProcMemory {
  readonly rssKiB: number;
  readonly hwmKiB: number;
  /** Anonymous pages (heaps, malloc) and file-backed pages (the node binary, shared libraries). */
  readonly anonKiB: number;
  readonly fileKiB: number;
}

export function procStatus(pid: number): ProcMemory {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    rssKiB: field('VmRSS'),
    hwmKiB: field('VmHWM'),
    anonKiB: field('RssAnon'),
    fileKiB: field('RssFile') + field('RssShmem'),
  };
}

/** Clock ticks per second of the CPU times in /proc/<pid>/stat. */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds of a process so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
export async function terminate(child: ChildProcess, graceMs = 15_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = exitOf(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** The median of five RSS samples of a process that does nothing: a calibration for RSS figures. */
export async function idleProcessRss(args: string[], cwd: string, settleMs: number): Promise<ProcMemory> {
  const child = spawn(process.execPath, args, { cwd, stdio: 'ignore' });
  try {
    await sleep(settleMs);
    const samples: ProcMemory[] = [];
    for (let i = 0; i < 5; i++) {
      samples.push(procStatus(child.pid!));
      await sleep(200);
    }
    return [...samples].sort((a, b) => a.rssKiB - b.rssKiB)[2]!;
  } finally {
    await terminate(child, 2000);
  }
}
