/**
 * One real node: the cached root filesystem of hack/real-node/build.sh booted with systemd as
 * PID 1 of an nspawn container, read-only under a tmpfs overlay of its own (every node a
 * copy-on-write copy of the image; what it writes lives in memory and goes with it), with a
 * private network that holds only loopback. node.sh does the booting under hack/envtest's
 * supervisor, which takes the node down when this process dies, even by SIGKILL: node.sh powers
 * the container off, kills what is left through its cgroup and removes the node directory, the
 * container's cgroups and its entries under /run/systemd/nspawn. Nodes of a vanished run that could
 * not clean up are reaped by the next run (runs.ts).
 *
 * The node directory, <base>/<owner pid>-<random>/<name>/, holds what belongs to this node alone:
 * .real-node-dir (the marker that allows its removal), console.log, nspawn.pid, and the host files
 * bind-mounted into the node.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { assertContainerLeader, Container, leaderOf } from './container.js';
import { DEFAULT_BASE, guardBase, guardNodeName, guardRoot, NODE_DIR_MARKER } from './root-guard.js';
import { cleanNode, NODE_SCRIPT, type NodeRecord, removeRecord, writeRecord } from './runs.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Bind {
  /** A path under the node directory (files of this node) or anywhere else on the host. */
  readonly host: string;
  readonly inside: string;
  readonly readOnly?: boolean;
}

export interface RealNodeOptions {
  readonly name: string;
  /** The cache dir hack/real-node/build.sh printed (rootfs/, nspawn/). */
  readonly cache: string;
  /** hack/envtest's supervisor binary. */
  readonly supervisor: string;
  /** Parent of all node directories (default REAL_NODE_BASE or /var/tmp/gardener-osc-real-node). */
  readonly base?: string;
}

let runDir: string | undefined;

/** `<base>/<pid>-<random>`, one per process. */
function runDirectory(base: string): string {
  runDir ??= join(base, `${process.pid}-${randomBytes(3).toString('hex')}`);
  return runDir;
}

export function defaultBase(): string {
  return process.env.REAL_NODE_BASE || DEFAULT_BASE;
}

export class RealNode {
  readonly name: string;
  readonly base: string;
  readonly nodeDir: string;
  readonly rootfs: string;
  readonly consoleLog: string;
  private supervisor: ChildProcess | undefined;
  private exited: Promise<number | null> | undefined;
  private running: Container | undefined;

  /** Makes the node directory; nothing runs yet. */
  constructor(private readonly o: RealNodeOptions) {
    this.name = guardNodeName(o.name);
    const base = resolve(o.base ?? defaultBase());
    // a base that does not exist yet is made only where its parent passes the same rules
    if (!existsSync(base)) guardBase(dirname(base));
    mkdirSync(base, { recursive: true, mode: 0o755 });
    this.base = guardBase(base);
    this.rootfs = guardRoot(join(o.cache, 'rootfs'), dirname(o.cache));
    this.nodeDir = join(runDirectory(this.base), o.name);
    if (existsSync(this.nodeDir)) throw new Error(`${this.nodeDir} exists already`);
    mkdirSync(this.nodeDir, { recursive: true, mode: 0o755 });
    writeFileSync(join(this.nodeDir, NODE_DIR_MARKER), '');
    this.consoleLog = join(this.nodeDir, 'console.log');
  }

  /** A file of this node on the host (to bind-mount into it). */
  hostFile(relative: string, content?: string | Buffer, mode = 0o644): string {
    const path = join(this.nodeDir, relative);
    if (!path.startsWith(`${this.nodeDir}/`)) throw new Error(`${relative} is not inside the node directory`);
    if (content !== undefined) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content, { mode });
    }
    return path;
  }

  get container(): Container {
    if (!this.running) throw new Error(`node ${this.name} is not running`);
    return this.running;
  }

  get record(): NodeRecord {
    return {
      owner: process.pid,
      name: this.name,
      base: this.base,
      nodeDir: this.nodeDir,
      root: this.rootfs,
      supervisor: this.supervisor?.pid,
    };
  }

  /** Boots the node and waits until systemd reports the boot finished (`running` or `degraded`). */
  async boot(binds: readonly Bind[] = [], timeoutMs = 90_000): Promise<Container> {
    const args = [
      ...['--grace=30s', '--', 'bash', NODE_SCRIPT, 'boot', '--name', this.name],
      ...['--root', this.rootfs, '--root-parent', dirname(this.o.cache), '--base', this.base],
      ...['--node-dir', this.nodeDir, '--nspawn', join(this.o.cache, 'nspawn', 'systemd-nspawn')],
      ...['--owner', String(process.pid)],
      ...binds.flatMap((b) => [b.readOnly ? '--bind-ro' : '--bind', `${b.host}:${b.inside}`]),
    ];
    const log = openSync(this.consoleLog, 'a');
    const child = spawn(this.o.supervisor, args, { stdio: ['ignore', log, log] });
    closeSync(log);
    this.supervisor = child;
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
    writeRecord(this.record);

    const deadline = Date.now() + timeoutMs;
    const pidFile = join(this.nodeDir, 'nspawn.pid');
    let nspawnPid: number | undefined;
    let leader: number | undefined;
    // systemd has to be PID 1 of its own namespaces before the container counts as started
    for (;;) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`node ${this.name} did not start:\n${this.consoleTail()}`);
      nspawnPid ??= existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) || undefined : undefined;
      leader = nspawnPid === undefined ? undefined : leaderOf(nspawnPid);
      if (nspawnPid !== undefined && leader !== undefined) {
        try {
          assertContainerLeader(nspawnPid, leader);
          break;
        } catch {
          // not yet: nspawn's child has not entered the container's namespaces
        }
      }
      await sleep(50);
    }
    this.running = new Container(nspawnPid, leader);
    // `offline` until systemd's bus answers, `starting` until the boot transaction is done
    for (;;) {
      const state = (
        await this.running.exec(['systemctl', 'is-system-running', '--wait'], timeoutMs)
      ).stdout.trim();
      if (state === 'running' || state === 'degraded') return this.running;
      // '' while systemctl cannot reach systemd at all
      if (!['', 'offline', 'starting', 'initializing'].includes(state))
        throw new Error(`node ${this.name} did not boot (${state}):\n${this.consoleTail()}`);
      if (Date.now() > deadline)
        throw new Error(`node ${this.name} is still ${state}:\n${this.consoleTail()}`);
      await sleep(100);
    }
  }

  consoleTail(bytes = 4000): string {
    try {
      return readFileSync(this.consoleLog, 'utf8').slice(-bytes);
    } catch {
      return '(no console log)';
    }
  }

  /** Powers the node off and waits until node.sh has removed everything it left on the host. */
  async stop(timeoutMs = 45_000): Promise<void> {
    const child = this.supervisor;
    const deadline = Date.now() + timeoutMs;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await this.exited;
    this.running = undefined;
    // node.sh cleans up in a session of its own after the supervisor is gone
    while (existsSync(this.nodeDir) && Date.now() < deadline) await sleep(100);
    // normally done by now; after a SIGKILL of node.sh it is not
    cleanNode(this.record);
    removeRecord(this.record);
    for (const dir of [dirname(this.nodeDir), this.base]) {
      try {
        rmdirSync(dir);
      } catch {
        break; // other nodes are still there
      }
    }
  }
}
