/**
 * One simulated worker node of the demo: its own host root in a temp dir, the legacy downloader's
 * state in it, node-init's steps (standing in for the legacy executor, which would start
 * gardener-node-init.service on a real node), and the part of systemd that runs
 * gardener-node-agent.service: one real `gardener-node-agent run` process per node with its own
 * root, node name, ports (0: free ones), recorded systemd (with times) and image directory, started
 * again after `RestartSec` whenever it exits, as `Restart=always` does.
 */

import { X509Certificate } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { PATH, parseYaml, UNIT } from '../../api/index.js';
import { parseRecording, type RecordedSystemdOp } from '../node-agent-doubles/recording-systemd.js';
import { SYSTEMD_FAULTS_ENV } from '../node-agent-doubles/systemd-faults.js';
import { jsonLines, tail } from './landscape.js';
import { type Exit, type SupervisedProcess, startSupervised } from './processes.js';
import type { NodeInit, ScenarioNode } from './scenario-node.js';

export interface NodeSpec {
  readonly name: string;
  readonly pool: string;
  readonly zone: string;
  readonly kubernetesVersion: string;
  /** Set where the pool names its CRI explicitly (the node label, part of the OSC key). */
  readonly criName?: string;
  readonly architecture: string;
}

export interface NodeEnvironment {
  /** The shoot API server as the agents reach it (the OSC's config names the landscape's URL). */
  readonly apiServer: string;
  readonly imagesDir: string;
  /** A line for the demo's timeline. */
  readonly emit: (node: string, text: string) => void;
  /** Aborted when the demo stops: "systemd" starts nothing any more. */
  readonly signal?: AbortSignal;
  /** The recorded systemd's failure rules (NODE_AGENT_TEST_SYSTEMD_FAULTS), shared by every node. */
  readonly systemdFaults?: string;
}

/** How long after an apply the agents judge it (`--apply-settle-time`): short for the demo. */
export const AGENT_SETTLE = '2s';

export interface LegacyState {
  /** The downloader's files as its provisioning OSC and its own runs leave them. */
  readonly files: readonly { path: string; mode: number; content: Buffer }[];
  readonly unitContent: string;
}

const DEFAULT_RESTART_SEC = 5;

/** Writes `content` at `path` under `root` with exactly `mode` (umask never decides). */
function writeUnder(root: string, path: string, content: Buffer | string, mode: number): void {
  const target = join(root, path);
  mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
  writeFileSync(target, content);
  chmodSync(target, mode);
}

export class DemoNode implements ScenarioNode {
  readonly dir: string;
  readonly root: string;
  readonly recordFile: string;
  readonly agentLog: string;
  readonly bootstrapLog: string;
  /** Why the agent cannot run (crash loop), for the waits to fail with. */
  fatal: string | undefined;
  readonly agentStarts: number[] = [];
  readonly agentExits: { at: number; exit: Exit; restartedItself: boolean }[] = [];
  private agent: SupervisedProcess | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private failuresInARow = 0;

  constructor(
    readonly spec: NodeSpec,
    workDir: string,
    private readonly env: NodeEnvironment,
  ) {
    this.dir = join(workDir, 'nodes', spec.name);
    this.root = join(this.dir, 'root');
    this.recordFile = join(this.dir, 'systemd.jsonl');
    this.agentLog = join(this.dir, 'agent.log');
    this.bootstrapLog = join(this.dir, 'node-init.log');
    mkdirSync(this.root, { recursive: true });
    writeFileSync(this.recordFile, '');
  }

  get name(): string {
    return this.spec.name;
  }

  /** What a node that ran the legacy downloader has: its directory, token, unit and wants link. */
  writeLegacyState(state: LegacyState): void {
    for (const f of state.files) writeUnder(this.root, f.path, f.content, f.mode);
    writeUnder(this.root, PATH.downloaderUnitFile, state.unitContent, 0o644);
    const link = join(this.root, PATH.downloaderUnitWantsLink);
    mkdirSync(dirname(link), { recursive: true });
    if (!existsSync(link)) symlinkSync(`../${UNIT.downloader}`, link);
  }

  hasLegacyState(): boolean {
    return (
      existsSync(join(this.root, PATH.downloaderDir)) ||
      existsSync(join(this.root, PATH.downloaderUnitWantsLink))
    );
  }

  /**
   * node-init's steps (init.sh): take the agent binary from its image (here: the image directory),
   * install it as /opt/bin/gardener-node-agent, run `gardener-node-agent bootstrap` against the
   * node's root. The config file is already there: the legacy executor wrote it with the reconcile
   * OSC's files. Then systemd starts the unit bootstrap enabled and started.
   */
  async nodeInit(o: NodeInit): Promise<void> {
    writeUnder(this.root, PATH.nodeAgentConfig, o.configYaml, 0o600);
    if (o.initScript !== undefined) writeUnder(this.root, PATH.nodeAgentInitScript, o.initScript, 0o755);
    const binary = join(this.root, PATH.nodeAgentBinary);
    mkdirSync(dirname(binary), { recursive: true });
    copyFileSync(join(this.env.imagesDir, encodeURIComponent(o.agentImage), 'gardener-node-agent'), binary);
    chmodSync(binary, 0o755);
    const before = parseRecording(readFileSync(this.recordFile, 'utf8')).length;
    const bootstrap = startSupervised({
      name: `${this.name} node-init`,
      command: process.execPath,
      args: [
        binary,
        'bootstrap',
        '--root',
        this.root,
        `--systemd=record-timed:${this.recordFile}`,
        `--disk=record:${join(this.dir, 'disk.jsonl')}`,
      ],
      env: this.processEnv(),
      cwd: this.dir,
      logFile: this.bootstrapLog,
    });
    const exit = await bootstrap.exited;
    if (exit.code !== 0)
      throw new Error(
        `${this.name}: gardener-node-agent bootstrap exited ${exit.code}:\n${tail(this.bootstrapLog)}`,
      );
    const ops = parseRecording(readFileSync(this.recordFile, 'utf8')).slice(before);
    const started = ops.some((op) => op.op === 'start' && 'unit' in op && op.unit === UNIT.nodeAgent);
    if (!started) throw new Error(`${this.name}: bootstrap did not start ${UNIT.nodeAgent}`);
    this.env.emit(
      this.name,
      `node-init: copied the agent from its image, bootstrap ran (${ops.map(describeOp).join(', ')})`,
    );
    this.startAgent();
  }

  /** What systemd does for gardener-node-agent.service (ExecStart, with the demo's flags). */
  startAgent(): void {
    if (this.stopping || this.env.signal?.aborted) return;
    const binary = join(this.root, PATH.nodeAgentBinary);
    this.agentStarts.push(Date.now());
    this.agent = startSupervised({
      name: `${this.name} agent`,
      command: process.execPath,
      args: [
        binary,
        'run',
        '--config',
        join(this.root, PATH.nodeAgentConfig),
        '--root',
        this.root,
        '--node-name',
        this.name,
        '--api-server',
        this.env.apiServer,
        `--systemd=record-timed:${this.recordFile}`,
        '--images',
        this.env.imagesDir,
        '--health-port',
        '0',
        '--metrics-port',
        '0',
        '--apply-settle-time',
        AGENT_SETTLE,
      ],
      env: this.processEnv(),
      cwd: this.dir,
      logFile: this.agentLog,
    });
    const logStart = existsSync(this.agentLog) ? statSync(this.agentLog).size : 0;
    void this.agent.exited.then((exit) => this.onAgentExit(exit, logStart));
  }

  private onAgentExit(exit: Exit, logStart: number): void {
    if (this.stopping || this.env.signal?.aborted) return;
    const restartedItself =
      exit.code === 0 &&
      jsonLines(this.agentLog, logStart).some(
        (e) => e.msg === 'Exiting so that systemd restarts the node agent',
      );
    this.agentExits.push({ at: Date.now(), exit, restartedItself });
    const restartSec = this.restartSec();
    if (restartedItself) {
      this.failuresInARow = 0;
      this.env.emit(
        this.name,
        `agent exited to restart itself (its unit changed); systemd starts it again in ${restartSec} s`,
      );
    } else {
      this.failuresInARow++;
      this.env.emit(
        this.name,
        `agent exited (code ${exit.code ?? exit.signal}); systemd starts it again in ${restartSec} s`,
      );
      if (this.failuresInARow >= 3) {
        this.fatal = `the agent of ${this.name} failed ${this.failuresInARow} times in a row; its log:\n${tail(this.agentLog)}`;
        return;
      }
    }
    this.restartTimer = setTimeout(() => this.startAgent(), restartSec * 1000);
  }

  /** RestartSec of the unit bootstrap installed. */
  private restartSec(): number {
    try {
      const unit = readFileSync(join(this.root, PATH.systemdUnitDir, UNIT.nodeAgent), 'utf8');
      const m = /^RestartSec=(\d+)\s*$/m.exec(unit);
      return m ? Number(m[1]) : DEFAULT_RESTART_SEC;
    } catch {
      return DEFAULT_RESTART_SEC;
    }
  }

  private processEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_AGENT_REFUSE_HOST_ROOT: '1',
      ...(this.env.systemdFaults ? { [SYSTEMD_FAULTS_ENV]: this.env.systemdFaults } : {}),
    };
    // a kubeconfig would win over the agent's own token credentials
    delete env.KUBECONFIG;
    return env;
  }

  get agentRunning(): boolean {
    return this.agent?.running ?? false;
  }

  /** The recorded systemd calls from line `from` on. */
  ops(from = 0): RecordedSystemdOp[] {
    return parseRecording(readFileSync(this.recordFile, 'utf8')).slice(from);
  }

  logSize(): number {
    return existsSync(this.agentLog) ? statSync(this.agentLog).size : 0;
  }

  logEntries(fromByte = 0): Record<string, unknown>[] {
    return jsonLines(this.agentLog, fromByte);
  }

  readRootFile(path: string): string | undefined {
    const file = join(this.root, path);
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  }

  identity(): string | undefined {
    return kubeconfigUser(this.readRootFile(PATH.nodeAgentKubeconfig));
  }

  identityKubeconfig(): string {
    return join(this.root, PATH.nodeAgentKubeconfig);
  }

  get agentRestartedItself(): boolean {
    return this.agentExits.some((e) => e.restartedItself);
  }

  /** The recording is written as systemd is called: nothing to read ahead. */
  async refresh(): Promise<void> {}

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    await this.agent?.stop();
  }
}

/** The user a kubeconfig authenticates as (its client certificate's CN), if any. */
export function kubeconfigUser(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const kubeconfig = parseYaml(text) as { users?: { user?: Record<string, string> }[] };
  const data = kubeconfig.users?.[0]?.user?.['client-certificate-data'];
  if (!data) return undefined;
  const { subject } = new X509Certificate(Buffer.from(data, 'base64'));
  return /^CN=(.*)$/m.exec(subject)?.[1];
}

export function describeOp(op: RecordedSystemdOp): string {
  return 'unit' in op ? `${op.op} ${op.unit}` : op.op;
}
