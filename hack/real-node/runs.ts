/**
 * Every node is recorded while it runs (owner pid, name, directories, supervisor pid) in the user
 * cache, so a later run can clean up after a process that vanished without doing so itself: its
 * supervisor and node.sh normally power the container off and clean up even when the owner is
 * SIGKILLed, but not when the machine rebooted or the supervisor itself was SIGKILLed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const NODE_SCRIPT = resolve(import.meta.dirname, 'node.sh');

export interface NodeRecord {
  readonly owner: number;
  readonly name: string;
  readonly base: string;
  readonly nodeDir: string;
  readonly root: string;
  readonly supervisor?: number;
}

export function runsDir(): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'gardener-osc', 'real-node', 'runs');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The recorded supervisor, if that pid still runs it (and not some other program that got the pid). */
function supervisorStillRunning(record: NodeRecord): boolean {
  if (record.supervisor === undefined || !alive(record.supervisor)) return false;
  try {
    const argv = readFileSync(`/proc/${record.supervisor}/cmdline`, 'utf8').split('\0');
    return argv.includes(NODE_SCRIPT) && argv.includes(record.name);
  } catch {
    return false;
  }
}

function recordFile(record: Pick<NodeRecord, 'owner' | 'name'>): string {
  return join(runsDir(), `${record.owner}-${record.name}.json`);
}

export function writeRecord(record: NodeRecord): void {
  mkdirSync(runsDir(), { recursive: true });
  writeFileSync(recordFile(record), JSON.stringify(record));
}

export function removeRecord(record: Pick<NodeRecord, 'owner' | 'name'>): void {
  rmSync(recordFile(record), { force: true });
}

/** What node.sh clean does for a recorded node: kill its processes, remove cgroups, /run entries, files. */
export function cleanNode(record: NodeRecord): void {
  execFileSync(
    'bash',
    [
      NODE_SCRIPT,
      'clean',
      '--name',
      record.name,
      '--root',
      record.root,
      '--base',
      record.base,
      '--node-dir',
      record.nodeDir,
      '--owner',
      String(record.owner),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
}

/** Cleans up after every recorded node whose owner is gone; returns the names it cleaned. */
export function reapStaleNodes(): string[] {
  const dir = runsDir();
  if (!existsSync(dir)) return [];
  const reaped: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    let record: NodeRecord;
    try {
      record = JSON.parse(readFileSync(join(dir, file), 'utf8')) as NodeRecord;
    } catch {
      rmSync(join(dir, file), { force: true });
      continue;
    }
    if (alive(record.owner)) continue;
    // a supervisor outliving its owner by more than its grace period is stuck: it was started by
    // a run of this tooling (the record says so), so it may be ended
    if (supervisorStillRunning(record)) process.kill(record.supervisor!, 'SIGKILL');
    cleanNode(record);
    removeRecord(record);
    reaped.push(record.name);
  }
  return reaped;
}
