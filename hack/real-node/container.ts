/**
 * The container of a running real node seen from the host: its PID 1 (the child of nspawn), proven
 * to be a container before anything runs in it, and commands run inside it through nsenter (the
 * container's own systemctl and journalctl; `machinectl` and `systemctl -M` need machined, which
 * this machine does not run).
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT_MARKER, UnsafeRootError } from './root-guard.js';

/** What commands inside the container get as environment: nothing of the test process. */
const INSIDE_ENV: NodeJS.ProcessEnv = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  LANG: 'C.UTF-8',
  SYSTEMD_COLORS: '0',
  SYSTEMD_PAGER: '',
};

export interface ExecResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function namespace(pid: number | 'self', kind: string): string {
  return statSync(`/proc/${pid}/ns/${kind}`).ino.toString();
}

function parentOf(pid: number): number | undefined {
  try {
    // the field after the command (which may hold spaces and parentheses) is the state, then the ppid
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** The container's PID 1 as the host sees it, once nspawn has started it. */
export function leaderOf(nspawnPid: number): number | undefined {
  try {
    const children = readFileSync(`/proc/${nspawnPid}/task/${nspawnPid}/children`, 'utf8').trim();
    const first = Number(children.split(/\s+/)[0]);
    return Number.isInteger(first) && first > 0 ? first : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Refuses a process that is not PID 1 of a container with a marked root: it must be nspawn's child,
 * live in other mount and PID namespaces than this process, and see `/.container-root-marker`.
 */
export function assertContainerLeader(nspawnPid: number, leader: number): void {
  if (parentOf(leader) !== nspawnPid)
    throw new UnsafeRootError(`process ${leader} is not the container started by nspawn ${nspawnPid}`);
  for (const kind of ['mnt', 'pid']) {
    if (namespace(leader, kind) === namespace('self', kind))
      throw new UnsafeRootError(`process ${leader} shares this machine's ${kind} namespace`);
  }
  let marked = false;
  try {
    marked = statSync(join(`/proc/${leader}/root`, ROOT_MARKER)).isFile();
  } catch {
    // reported below
  }
  if (!marked) throw new UnsafeRootError(`the root of process ${leader} has no ${ROOT_MARKER}`);
}

export class Container {
  constructor(
    readonly nspawnPid: number,
    readonly leader: number,
  ) {}

  /** A path inside the running container, as the host reaches it. */
  path(inside: string): string {
    if (!inside.startsWith('/') || inside.split('/').includes('..'))
      throw new Error(`not an absolute normalised path: ${inside}`);
    return `/proc/${this.leader}/root${inside}`;
  }

  /** Runs argv inside every namespace of the container, with its root and working directory. */
  async exec(argv: readonly string[], timeoutMs = 60_000): Promise<ExecResult> {
    assertContainerLeader(this.nspawnPid, this.leader);
    const args = ['--target', String(this.leader), '--all', '--root', '--wd', '--', ...argv];
    return new Promise((resolve, reject) => {
      const child = spawn('nsenter', args, { env: INSIDE_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => err.push(b));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${argv.join(' ')} did not finish within ${timeoutMs} ms`));
      }, timeoutMs);
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve({
          code,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
        });
      });
    });
  }

  /** Like exec, but a non-zero exit is an error that says what the command printed. */
  async run(argv: readonly string[], timeoutMs?: number): Promise<string> {
    const r = await this.exec(argv, timeoutMs);
    if (r.code !== 0)
      throw new Error(`${argv.join(' ')} exited ${r.code} inside the container: ${r.stderr || r.stdout}`);
    return r.stdout;
  }

  systemctl(...args: string[]): Promise<ExecResult> {
    return this.exec(['systemctl', '--no-pager', ...args]);
  }
}
