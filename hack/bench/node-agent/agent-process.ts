/**
 * The agent under test as a child process, supervised like systemd would (an agent that exits 0
 * to restart itself is started again), with its log lines kept and waited for.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { terminate } from '../support/process.js';
import { ROOT } from '../support/revision.js';
import { now, progress } from '../support/run.js';

/** Resolves waiters whenever something they may wait for happened (a line, an event, an exit). */
export class Changes {
  private readonly waiters = new Set<() => void>();

  notify(): void {
    for (const w of [...this.waiters]) w();
  }

  until(what: string, timeoutMs: number, done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      const check = () => {
        if (!done()) return;
        finish();
        resolve();
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }
}

/** What waits in this bench waits on. */
export const changes = new Changes();

export interface AgentLog {
  readonly time: number;
  readonly msg: string;
  readonly line: string;
}

export class AgentProcess {
  child: ChildProcess | undefined;
  readonly logs: AgentLog[] = [];
  readonly exits: { code: number | null; signal: string | null; at: number }[] = [];
  starts = 0;
  /** Like systemd's Restart=always: an agent that exits to restart itself is started again. */
  supervise = true;
  private readonly logFd: number;

  constructor(
    /** What to start: `node` (this process's) or the agent's single executable. */
    private readonly command: string,
    private readonly args: string[],
    private readonly env: NodeJS.ProcessEnv,
    logFile: string,
  ) {
    this.logFd = openSync(logFile, 'a');
  }

  get pid(): number {
    if (!this.child?.pid || this.child.exitCode !== null) throw new Error('the agent is not running');
    return this.child.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    const child = spawn(this.command, this.args, {
      cwd: ROOT,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.starts++;
    for (const stream of [child.stdout!, child.stderr!]) {
      createInterface({ input: stream }).on('line', (line) => this.onLine(line));
    }
    child.once('exit', (code, signal) => {
      this.exits.push({ code, signal, at: now() });
      changes.notify();
      if (this.supervise && code === 0 && this.child === child) {
        progress('the agent exited 0 (restarting itself); starting it again, as systemd would');
        setTimeout(() => this.supervise && this.start(), 200);
      }
    });
  }

  private onLine(line: string): void {
    writeFileSync(this.logFd, `${line}\n`);
    try {
      const entry = JSON.parse(line) as { time?: string; msg?: string };
      this.logs.push({ time: Date.parse(entry.time ?? ''), msg: entry.msg ?? '', line });
    } catch {
      this.logs.push({ time: Number.NaN, msg: line, line });
    }
    changes.notify();
  }

  async stop(): Promise<number | null> {
    this.supervise = false;
    const code = this.child ? await terminate(this.child) : null;
    return code;
  }

  close(): void {
    closeSync(this.logFd);
  }

  tail(n = 30): string {
    return this.logs
      .slice(-n)
      .map((l) => l.line)
      .join('\n');
  }
}
