/**
 * Who holds the lock a build waits for. The cold builds serialise on flock(2) (a second build on the
 * machine waits, then finds the cache), and a silent wait of minutes looks like a hang: this finds,
 * from /proc, the lock a process of the build's tree is blocked on and the processes outside that
 * tree that hold it, so the wait can name them (pid, command, working directory, for how long).
 *
 * /proc/locks names the process that took a flock lock, which may have exited while its open file
 * keeps the lock (`exec 9>lock; flock 9` in a script: flock(1) takes it for the shell). So the
 * holders are the live processes that have the locked file open, outside the waiting tree, and of
 * those the ones whose parent does not have it open too (a build script, not each compiler it runs).
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';

export interface LockEntry {
  readonly blocked: boolean;
  readonly kind: string;
  readonly pid: number;
  /** `major:minor:inode` as /proc/locks prints it (major and minor in hex). */
  readonly file: string;
}

/** Lines of /proc/locks, e.g. `2: FLOCK  ADVISORY  WRITE 5712 fe:00:9977903 0 EOF`; `-> ` marks a waiter. */
export function parseProcLocks(text: string): LockEntry[] {
  const entries: LockEntry[] = [];
  for (const line of text.split('\n')) {
    const m = /^\d+:\s+(->\s+)?(\S+)\s+\S+\s+\S+\s+(-?\d+)\s+([0-9a-f]+:[0-9a-f]+:\d+)\s/.exec(line);
    if (m) entries.push({ blocked: !!m[1], kind: m[2]!, pid: Number(m[3]), file: normaliseFile(m[4]!) });
  }
  return entries;
}

function normaliseFile(file: string): string {
  const [major, minor, inode] = file.split(':');
  return `${Number.parseInt(major!, 16)}:${Number.parseInt(minor!, 16)}:${inode}`;
}

/** A stat's device and inode in the normalised /proc/locks form. */
function fileId(dev: number, ino: number): string {
  const major = ((dev >>> 8) & 0xfff) | (Math.floor(dev / 2 ** 32) * 0x1000);
  const minor = (dev & 0xff) | ((dev >>> 12) & 0xfff00);
  return `${major}:${minor}:${ino}`;
}

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly command: string;
  readonly cwd?: string;
  readonly runningSeconds?: number;
}

function readOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

function pids(): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

function ppidOf(pid: number): number | undefined {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'), '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return stat ? Number(fields[1]) : undefined;
}

export function describeProcess(pid: number): ProcessInfo {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'), '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = 100; // USER_HZ, fixed at 100 by the kernel's ABI
  const uptime = Number(readOr(() => readFileSync('/proc/uptime', 'utf8'), '').split(' ')[0]);
  const started = Number(fields[19]) / ticks;
  const command = readOr(() => readFileSync(`/proc/${pid}/cmdline`, 'utf8'), '')
    .split('\0')
    .filter(Boolean)
    .join(' ');
  return {
    pid,
    ppid: Number(fields[1]),
    command: command || `(${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))})`,
    cwd: readOr(() => readlinkSync(`/proc/${pid}/cwd`), undefined),
    runningSeconds: Number.isFinite(uptime - started) && stat ? Math.max(0, uptime - started) : undefined,
  };
}

/** `root` and every process descending from it. */
export function processTree(root: number): Set<number> {
  const children = new Map<number, number[]>();
  for (const pid of pids()) {
    const ppid = ppidOf(pid);
    if (ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const tree = new Set<number>();
  const visit = (pid: number) => {
    if (tree.has(pid)) return;
    tree.add(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return tree;
}

/** Processes with `file` open, each with the path it opened it by. */
function openers(file: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const pid of pids()) {
    const fds = readOr(() => readdirSync(`/proc/${pid}/fd`), [] as string[]);
    for (const fd of fds) {
      const link = `/proc/${pid}/fd/${fd}`;
      const st = readOr(() => statSync(link), undefined);
      if (st && fileId(st.dev, st.ino) === file) {
        found.set(
          pid,
          readOr(() => readlinkSync(link), file),
        );
        break;
      }
    }
  }
  return found;
}

export interface LockWait {
  /** The locked file's path (as the waiter opened it). */
  readonly path: string;
  /** The outermost holders (empty when they cannot be seen, e.g. another user's processes). */
  readonly holders: readonly ProcessInfo[];
}

/** The lock some process of `root`'s tree waits for, with its holders; undefined when none waits. */
export function lockWaitOf(
  root: number,
  procLocks = readOr(() => readFileSync('/proc/locks', 'utf8'), ''),
): LockWait | undefined {
  const tree = processTree(root);
  const entries = parseProcLocks(procLocks);
  const waiting = entries.find((e) => e.blocked && tree.has(e.pid));
  if (!waiting) return undefined;
  const open = openers(waiting.file);
  const waiters = new Set(entries.filter((e) => e.blocked && e.file === waiting.file).map((e) => e.pid));
  const holding = [...open.keys()].filter((pid) => !tree.has(pid) && !waiters.has(pid));
  const outermost = holding.filter((pid) => !holding.includes(ppidOf(pid) ?? -1));
  return {
    path: open.get(waiting.pid) ?? [...open.values()][0] ?? waiting.file,
    holders: outermost.map(describeProcess),
  };
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60
    ? `${m}m${String(s % 60).padStart(2, '0')}s`
    : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function describeWait(wait: LockWait): string {
  if (wait.holders.length === 0)
    return `waiting for the lock ${wait.path} (its holder is not visible to this user)`;
  const who = wait.holders
    .map(
      (h) =>
        `pid ${h.pid} \`${h.command}\`` +
        (h.cwd ? ` in ${h.cwd}` : '') +
        (h.runningSeconds !== undefined ? `, running for ${formatDuration(h.runningSeconds)}` : ''),
    )
    .join('; ');
  return `waiting for the lock ${wait.path}, held by ${who}`;
}
