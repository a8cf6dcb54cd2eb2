/**
 * The parts of this machine a real node could leave changed, captured before and compared after:
 * processes of the node, mounts of node or image directories, the node's cgroups, what nspawn
 * keeps under /run, the host's own systemd configuration (what an offline `systemctl enable` on
 * the wrong root would edit), the node directories, and /tmp: a canary file, aged 40 days, that
 * any systemd-tmpfiles run against this machine's /tmp would remove.
 */
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { defaultBase } from './real-node.js';

const CANARY = `/tmp/.real-node-canary-${process.pid}`;
const CANARY_AGE_MS = 40 * 24 * 3600 * 1000;

export interface HostSnapshot {
  readonly canary: { readonly ino: number; readonly mtimeMs: number; readonly content: string } | undefined;
  readonly tmpDevice: number;
  readonly runNspawn: readonly string[];
  readonly hostUnits: readonly string[];
  readonly cgroups: readonly string[];
  readonly mounts: readonly string[];
  readonly base: readonly string[];
}

/** Every path below `dir` with what it is (a symlink with its target, a file with size and mtime). */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out.push(`${path} -> ${readlinkSync(path)}`);
      else if (st.isDirectory()) {
        out.push(`${path}/`);
        walk(path);
      } else out.push(`${path} ${st.size} ${st.mtimeMs}`);
    }
  };
  walk(dir);
  return out;
}

function realNodeCgroups(): string[] {
  return ['/sys/fs/cgroup/unified', '/sys/fs/cgroup/systemd', '/sys/fs/cgroup']
    .filter((d) => existsSync(d))
    .flatMap((d) =>
      readdirSync(d)
        .filter((n) => n.startsWith('real-node-'))
        .map((n) => join(d, n)),
    );
}

function realNodeMounts(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((l) => /real-node|nspawn/.test(l));
}

let canaryLaid = false;

/** Captures the host; the first call also lays the /tmp canary (later ones only look at it). */
export function hostSnapshot(): HostSnapshot {
  if (!canaryLaid) {
    canaryLaid = true;
    writeFileSync(CANARY, `laid by the real-node tests (pid ${process.pid}); removed by them\n`);
    const old = new Date(Date.now() - CANARY_AGE_MS);
    utimesSync(CANARY, old, old);
  }
  const canary = existsSync(CANARY)
    ? { ino: statSync(CANARY).ino, mtimeMs: statSync(CANARY).mtimeMs, content: readFileSync(CANARY, 'utf8') }
    : undefined;
  return {
    canary,
    tmpDevice: statSync('/tmp').dev,
    runNspawn: tree('/run/systemd/nspawn'),
    hostUnits: tree('/etc/systemd/system'),
    cgroups: realNodeCgroups(),
    mounts: realNodeMounts(),
    base: tree(defaultBase()),
  };
}

/** A process that still runs (a zombie waiting for this machine's init to reap it does not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Processes whose cgroup belongs to the node `name`. */
function processesOf(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cgroup`, 'utf8').includes(`/${name}/`)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * What differs from `before` (empty when the host is as found); removes the canary. Other runs on
 * this machine (another `npm test`) may boot nodes meanwhile: what belongs to this node is checked
 * always, what all nodes share (/run/systemd/nspawn, the node base directory, cgroups) is compared
 * whole only while no other node runs.
 */
export function hostDifferences(
  before: HostSnapshot,
  after: HostSnapshot,
  node: { readonly name: string; readonly nodeDir: string; readonly pids: readonly number[] },
): string[] {
  const problems: string[] = [];
  const same = (what: string, a: readonly string[], b: readonly string[]) => {
    const added = b.filter((x) => !a.includes(x));
    const removed = a.filter((x) => !b.includes(x));
    if (added.length || removed.length)
      problems.push(`${what} changed: added ${JSON.stringify(added)}, removed ${JSON.stringify(removed)}`);
  };
  const ours = (entries: readonly string[]) =>
    entries.filter((e) => e.includes(node.name) || e.includes(node.nodeDir));
  for (const pid of node.pids) if (alive(pid)) problems.push(`process ${pid} of the node still runs`);
  const left = processesOf(node.name);
  if (left.length) problems.push(`processes in the node's cgroups: ${left.join(', ')}`);
  for (const [what, entries] of [
    ['cgroups', after.cgroups],
    ['/run/systemd/nspawn entries', after.runNspawn],
    ['node directories', after.base],
    ['mounts', after.mounts],
  ] as const) {
    if (ours(entries).length) problems.push(`${what} of the node are left: ${JSON.stringify(ours(entries))}`);
  }
  same('mounts', before.mounts, after.mounts);
  same("the host's /etc/systemd/system", before.hostUnits, after.hostUnits);
  const othersRunning = before.cgroups.length > 0 || after.cgroups.length > 0;
  if (!othersRunning) {
    same('/run/systemd/nspawn', before.runNspawn, after.runNspawn);
    same('node directories', before.base, after.base);
  }
  if (before.tmpDevice !== after.tmpDevice) problems.push('/tmp is another file system now');
  if (JSON.stringify(before.canary) !== JSON.stringify(after.canary))
    problems.push(
      `the /tmp canary changed: ${JSON.stringify(before.canary)} -> ${JSON.stringify(after.canary)}`,
    );
  removeCanary();
  return problems;
}

/** Removes the /tmp canary of hostSnapshot (hostDifferences does; a run that compared nothing must). */
export function removeCanary(): void {
  rmSync(CANARY, { force: true });
}
