/**
 * The node agent as a process against a real kube-apiserver (issue #5): how fast an OSC secret
 * update reaches systemd, how much memory the agent holds idle and while the cluster holds 5,000
 * Nodes and 5,000 other Secrets in kube-system, and how many API requests it makes an hour in
 * steady state, each next to a calibration measured in the same run (a bare `node` process's RSS,
 * a plain GET roundtrip and the bench's own watch delivery against the same apiserver).
 *
 * The agent runs as its own process (by default the esbuild bundle that ships inside the
 * executable, built from the current sources into a temp dir; `--agent tsx` runs
 * node-agent/cli/main.ts under the tsx loader instead) with the ServiceAccount token the rendered
 * RBAC binds, the rendered OSC of the example's first worker pool plus one probe unit whose content
 * each update changes, `--systemd=record:FILE` and image files from a directory. Requests are
 * counted from the apiserver's audit log by the agent's username.
 *
 *   npx tsx hack/bench/node-agent.ts [--window 10m] [--updates 100] [--settle 30s] [--agent bundle|tsx]
 *     [--nodes 5000] [--secrets 5000] [--node-flags="--max-semi-space-size=1"]
 *
 * The report goes to stdout, progress to stderr. Everything it starts or creates (apiserver, etcd,
 * agent, calibration processes, objects, temp dirs) is removed on exit, also on SIGINT/SIGTERM.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  type FSWatcher,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  watch as watchFile,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { parseArgs } from 'node:util';
import { CoreV1Api, KubernetesObjectApi, type V1Node, type V1Secret } from '@kubernetes/client-node';
import { Agent, request } from 'undici';
import {
  ANNOTATION,
  type OperatingSystemConfig,
  PATH,
  parseGoDuration,
  parseYaml,
  sha256Hex,
  stringifyYaml,
} from '../../api/index.js';
import { DEFAULT_NOW, render } from '../../cli/render-command.js';
import { writeFileAtomic } from '../../node-agent/fs/atomic-write.js';
import { Informer } from '../../runtime/kube/informer.js';
import { LineSplitter } from '../../runtime/kube/json-lines.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import {
  type Envtest,
  readAuditEvents,
  startEnvtest,
  stopAllEnvtests,
} from '../../test/integration/envtest.js';
import { bundleNodeAgent, ENTRY, OPTIONAL_NATIVE_MODULES } from '../build-node-agent.js';

const ROOT = join(import.meta.dirname, '../..');

// ---------------------------------------------------------------------------------------------
// options

const { values: flags } = parseArgs({
  options: {
    window: { type: 'string', default: '10m' },
    updates: { type: 'string', default: '100' },
    settle: { type: 'string', default: '30s' },
    nodes: { type: 'string', default: '5000' },
    secrets: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '32' },
    agent: { type: 'string', default: 'bundle' },
    'node-flags': { type: 'string', default: '' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(
    'usage: npx tsx hack/bench/node-agent.ts [--window 10m] [--updates 100] [--settle 30s] ' +
      '[--nodes 5000] [--secrets 5000] [--concurrency 32] [--agent bundle|tsx] [--node-flags="--v8-flag ..."]',
  );
  process.exit(0);
}
function positiveInt(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, not ${text}`);
  return n;
}
const durationMs = (name: string, text: string) => {
  try {
    return parseGoDuration(text) / 1e6;
  } catch (e) {
    throw new Error(`--${name}: ${(e as Error).message}`);
  }
};
const WINDOW_MS = durationMs('window', flags.window);
const SETTLE_MS = durationMs('settle', flags.settle);
const UPDATES = positiveInt('updates', flags.updates);
const NODES = positiveInt('nodes', flags.nodes);
const SECRETS = positiveInt('secrets', flags.secrets);
const CONCURRENCY = Math.max(1, positiveInt('concurrency', flags.concurrency));
const AGENT_MODE = flags.agent;
/** Extra flags for the agent's node (only the agent's), e.g. `--max-semi-space-size=1`. */
const NODE_FLAGS = flags['node-flags'].split(/\s+/).filter(Boolean);
if (AGENT_MODE !== 'bundle' && AGENT_MODE !== 'tsx') throw new Error('--agent must be bundle or tsx');
if (WINDOW_MS < 1000) throw new Error('--window must be at least 1s');

// ---------------------------------------------------------------------------------------------
// small helpers

/** Epoch milliseconds with sub-millisecond resolution (monotonic within this process). */
const now = () => performance.timeOrigin + performance.now();
const started = now();
const progress = (msg: string) =>
  process.stderr.write(`[${((now() - started) / 1000).toFixed(1)}s] ${msg}\n`);
const print = (line = '') => process.stdout.write(`${line}\n`);

/** Nearest-rank quantile: the smallest value with at least q of the samples at or below it. */
function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (x: number) => (Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x.toFixed(1)) : '-');
const mib = (kib: number) => (kib / 1024).toFixed(1);
const thousands = (n: number) => n.toLocaleString('en-US');

/** Resolves waiters whenever something they may wait for happened (a line, an event, an exit). */
class Changes {
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
const changes = new Changes();

/** Cleanup steps, run once in reverse order (also on SIGINT/SIGTERM). */
const cleanups: { what: string; run: () => Promise<unknown> | unknown }[] = [];
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const step of cleanups.splice(0).reverse()) {
      const t = now();
      try {
        await step.run();
      } catch (e) {
        progress(`cleanup "${step.what}" failed: ${(e as Error).message}`);
      }
      if (now() - t > 2000) progress(`cleanup "${step.what}" took ${((now() - t) / 1000).toFixed(1)} s`);
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    progress(`${signal}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// processes: RSS and CPU from /proc

interface ProcMemory {
  readonly rssKiB: number;
  readonly hwmKiB: number;
  /** Anonymous pages (heaps, malloc) and file-backed pages (the node binary, shared libraries). */
  readonly anonKiB: number;
  readonly fileKiB: number;
}

function procStatus(pid: number): ProcMemory {
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

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds of a process so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

async function terminate(child: ChildProcess, graceMs = 15_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = exitOf(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

/** RSS of an idle process that does nothing: the calibration for the agent's RSS. */
async function idleProcessRss(args: string[], settleMs: number): Promise<ProcMemory> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'ignore' });
  const entry = { what: `calibration process ${child.pid}`, run: () => terminate(child, 2000) };
  cleanups.push(entry);
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
    cleanups.splice(cleanups.indexOf(entry), 1);
  }
}

// ---------------------------------------------------------------------------------------------
// the agent process

interface AgentLog {
  readonly time: number;
  readonly msg: string;
  readonly line: string;
}

class AgentProcess {
  child: ChildProcess | undefined;
  readonly logs: AgentLog[] = [];
  readonly exits: { code: number | null; signal: string | null; at: number }[] = [];
  starts = 0;
  /** Like systemd's Restart=always: an agent that exits to restart itself is started again. */
  supervise = true;
  private readonly logFd: number;

  constructor(
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
    const child = spawn(process.execPath, this.args, {
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

// ---------------------------------------------------------------------------------------------
// the recorded systemd calls, each line timestamped as it appears

interface RecordedOp {
  readonly op: string;
  readonly unit?: string;
  /** When the bench saw the line (fs.watch event, then a read): epoch ms, sub-ms resolution. */
  readonly seenAt: number;
  /** The file's mtime right after the line was read (kernel clock, coarse granularity). */
  readonly mtimeMs: number;
  /** Seen through the fallback poll rather than an fs.watch event. */
  readonly polled: boolean;
}

class RecordWatcher {
  readonly ops: RecordedOp[] = [];
  private offset = 0;
  private readonly lines = new LineSplitter();
  private readonly watcher: FSWatcher;
  private readonly poller: NodeJS.Timeout;

  constructor(readonly file: string) {
    writeFileSync(file, '');
    this.watcher = watchFile(file, () => this.read(false));
    this.poller = setInterval(() => this.read(true), 250);
  }

  private read(polled: boolean): void {
    const seenAt = now();
    const fd = openSync(this.file, 'r');
    try {
      const stat = fstatSync(fd);
      if (stat.size <= this.offset) return;
      const buffer = Buffer.alloc(stat.size - this.offset);
      const n = readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset += n;
      for (const line of this.lines.push(buffer.subarray(0, n))) {
        if (!line.trim()) continue;
        const op = JSON.parse(line) as { op: string; unit?: string };
        this.ops.push({ ...op, seenAt, mtimeMs: stat.mtimeMs, polled });
      }
    } finally {
      closeSync(fd);
    }
    changes.notify();
  }

  close(): void {
    this.watcher.close();
    clearInterval(this.poller);
  }
}

// ---------------------------------------------------------------------------------------------
// the API server, as admin (undici, keep-alive)

class AdminApi {
  private readonly dispatcher: Agent;
  private readonly token: string;
  readonly server: string;

  constructor(env: Envtest, connections: number) {
    const cluster = env.kubeConfig.getCurrentCluster()!;
    this.server = cluster.server;
    this.token = env.kubeConfig.getCurrentUser()?.token ?? '';
    this.dispatcher = new Agent({
      connections,
      keepAliveTimeout: 60_000,
      connect: { ca: Buffer.from(cluster.caData ?? '', 'base64') },
    });
  }

  async call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<{ status: number; json: unknown }> {
    const res = await request(this.server + path, {
      method,
      dispatcher: this.dispatcher,
      headers: {
        authorization: `Bearer ${this.token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': contentType }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    const json = text ? (JSON.parse(text) as unknown) : undefined;
    return { status: res.statusCode, json };
  }

  async must(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType?: string,
  ): Promise<unknown> {
    const { status, json } = await this.call(method, path, body, contentType);
    if (status < 200 || status >= 300)
      throw new Error(`${method} ${path}: HTTP ${status}: ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/** A plain GET roundtrip (the kubectl-like calibration), sequential on a warm connection. */
async function getRoundtrips(api: AdminApi, path: string, count: number): Promise<number[]> {
  for (let i = 0; i < 20; i++) await api.must('GET', path);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = now();
    await api.must('GET', path);
    times.push(now() - t);
  }
  return times;
}

/**
 * The same GET through @kubernetes/client-node's CoreV1Api, the client the agent uses for its Node
 * patches, events and lease renewals; counts the TLS connections it opens (tls.connect calls).
 */
async function clientNodeRoundtrips(
  env: Envtest,
  name: string,
  count: number,
): Promise<{ times: number[]; connections: number }> {
  const core = env.kubeConfig.makeApiClient(CoreV1Api);
  const read = () => core.readNamespacedSecret({ name, namespace: 'kube-system' });
  for (let i = 0; i < 5; i++) await read();
  const module = tls as unknown as { connect: (...args: unknown[]) => unknown };
  const original = module.connect;
  let connections = 0;
  module.connect = (...args: unknown[]) => {
    connections++;
    return original.apply(tls, args);
  };
  const times: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const t = now();
      await read();
      times.push(now() - t);
    }
  } finally {
    module.connect = original;
  }
  return { times, connections };
}

async function createMany(
  count: number,
  concurrency: number,
  create: (i: number) => Promise<unknown>,
): Promise<number> {
  const t = now();
  let next = 0;
  const worker = async () => {
    while (next < count) await create(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return now() - t;
}

/** Bytes of the agent bundle per package (node_modules package, or the project folder). */
async function bundleComposition(): Promise<{ total: number; parts: [string, number][] }> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: OPTIONAL_NATIVE_MODULES,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const parts = new Map<string, number>();
  let total = 0;
  for (const output of Object.values(result.metafile.outputs)) {
    total += output.bytes;
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
      const part = m ? m[1]! : `${input.split('/')[0]}/ (project)`;
      parts.set(part, (parts.get(part) ?? 0) + bytesInOutput);
    }
  }
  return { total, parts: [...parts].sort((a, b) => b[1] - a[1]) };
}

/** Bundles `source` (TypeScript, resolved from the project) like the agent into `outfile`. */
async function bundleProbe(outfile: string, source: string): Promise<string> {
  const esbuild = await import('esbuild');
  await esbuild.build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'ts', sourcefile: 'probe.ts' },
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: OPTIONAL_NATIVE_MODULES,
    logLevel: 'silent',
  });
  return outfile;
}

const IDLE = 'setInterval(() => {}, 1 << 30);';
/** The parts of @kubernetes/client-node the agent imports, with the clients it makes. */
const CLIENT_NODE_PROBE = `
import { ApiException, CoordinationV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions, V1MicroTime } from '@kubernetes/client-node';
const kc = new KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: false }],
  users: [{ name: 'u', token: 't' }],
  contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
  currentContext: 'x',
});
(globalThis as Record<string, unknown>).keep = [kc.makeApiClient(CoreV1Api), kc.makeApiClient(CoordinationV1Api), ApiException, PatchStrategy, setHeaderOptions, V1MicroTime];
${IDLE}`;
/** The agent's other runtime dependencies. */
const OTHER_DEPS_PROBE = `
import * as a from 'undici'; import * as b from 'pino'; import * as c from 'zod'; import * as d from 'yaml';
import * as e from 'prom-client'; import * as f from 'commander';
(globalThis as Record<string, unknown>).keep = [a, b, c, d, e, f];
${IDLE}`;

/** A small atomic write (temp file, fsync, rename, directory fsync) as the agent does it, in `dir`. */
async function atomicWrites(dir: string, count: number): Promise<number[]> {
  const file = join(dir, 'fsync-calibration');
  const times: number[] = [];
  for (let i = 0; i < count + 5; i++) {
    const t = now();
    await writeFileAtomic(file, `calibration ${i}\n${'x'.repeat(1024)}`, 0o600);
    if (i >= 5) times.push(now() - t);
  }
  rmSync(file, { force: true });
  return times;
}

/** The agent's own Node.js memory metrics (prom-client's default metrics on its /metrics). */
async function agentHeap(url: string | undefined): Promise<Record<string, number> | undefined> {
  if (!url) return undefined;
  try {
    const res = await request(`${url}/metrics`);
    const text = await res.body.text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
    return {
      heapUsed: value('nodejs_heap_size_used_bytes'),
      heapTotal: value('nodejs_heap_size_total_bytes'),
      external: value('nodejs_external_memory_bytes'),
      rss: value('process_resident_memory_bytes'),
    };
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// the audit log

interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string };
  objectRef?: {
    resource?: string;
    subresource?: string;
    apiGroup?: string;
    namespace?: string;
    name?: string;
  };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
}

interface AgentRequest {
  readonly at: number;
  readonly verb: string;
  readonly resource: string;
  readonly uri: string;
  readonly code: number | undefined;
}

function agentRequests(env: Envtest, username: string): AgentRequest[] {
  const events = readAuditEvents(env) as unknown as AuditEvent[];
  const codes = new Map<string, number | undefined>();
  for (const e of events)
    if (e.user?.username === username && e.stage === 'ResponseComplete')
      codes.set(e.auditID, e.responseStatus?.code);
  return events
    .filter((e) => e.user?.username === username && e.stage === 'RequestReceived')
    .map((e) => {
      const ref = e.objectRef;
      const resource = ref?.resource
        ? `${ref.apiGroup ? `${ref.apiGroup}/` : ''}${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}`
        : e.requestURI.split('?')[0]!;
      return {
        at: Date.parse(e.requestReceivedTimestamp),
        verb: e.verb,
        resource,
        uri: e.requestURI,
        code: codes.get(e.auditID),
      };
    });
}

const selectorOf = (uri: string) => {
  const q = new URL(`http://x${uri}`).searchParams;
  return [q.get('fieldSelector'), q.get('labelSelector')].filter(Boolean).join(',') || '(no selector)';
};

// ---------------------------------------------------------------------------------------------
// the OSC: the rendered one of the example's first pool plus a probe unit

const PROBE_UNIT = 'bench-probe.service';

function withProbe(osc: OperatingSystemConfig, generation: number): string {
  const copy = structuredClone(osc);
  copy.spec.units = [
    ...(copy.spec.units ?? []),
    {
      name: PROBE_UNIT,
      enable: true,
      command: 'start',
      content:
        '[Unit]\nDescription=node agent benchmark probe\n' +
        `# generation ${generation}\n` +
        '[Service]\nType=oneshot\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n',
    },
  ];
  return stringifyYaml(copy);
}

// ---------------------------------------------------------------------------------------------
// main

interface UpdateSample {
  send: number;
  response: number;
  benchWatch: number;
  agentEnqueued: number;
  lastOpWatch: number;
  lastOpMtime: number;
  appliedLog: number;
  nodeSeen: number;
  ops: string[];
  polled: boolean;
}

interface Phase {
  readonly name: string;
  readonly start: number;
  end: number;
}

async function main(): Promise<void> {
  // always our own apiserver: request counts need its audit log
  delete process.env.TEST_KUBECONFIG;
  delete process.env.TEST_SHOOT_KUBECONFIG;
  const runId = Date.now().toString(36);
  const load0 = loadavg();
  print(`# node agent benchmark (hack/bench/node-agent.ts), ${new Date().toISOString()}`);
  print();
  print(
    `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average at start ` +
      `${load0.map((l) => l.toFixed(2)).join(' / ')}; other jobs share this machine, so absolute times are noisy: ` +
      'read them against the calibrations of the same run',
  );
  print(
    `options: window ${flags.window}, updates ${UPDATES} per phase, settle ${flags.settle}, ` +
      `${thousands(NODES)} Nodes + ${thousands(SECRETS)} Secrets (concurrency ${CONCURRENCY}), agent: ${AGENT_MODE}` +
      (NODE_FLAGS.length > 0 ? `, agent node flags: ${NODE_FLAGS.join(' ')}` : ''),
  );

  const dir = mkdtempSync(join(tmpdir(), 'bench-node-agent-'));
  cleanups.push({ what: 'temp dir', run: () => rmSync(dir, { recursive: true, force: true }) });

  // --- the agent's program
  let agentArgs: string[];
  if (AGENT_MODE === 'bundle') {
    const bundle = join(dir, 'gardener-node-agent.cjs');
    const t = now();
    await bundleNodeAgent(bundle);
    progress(`bundled the agent in ${((now() - t) / 1000).toFixed(1)} s`);
    agentArgs = [...NODE_FLAGS, bundle];
  } else {
    agentArgs = [...NODE_FLAGS, '--import', 'tsx', join(ROOT, 'node-agent/cli/main.ts')];
  }
  const composition = await bundleComposition();

  // --- calibration: RSS of processes that do nothing
  progress('calibration: idle node processes');
  const bareNode = await idleProcessRss(['-e', 'setInterval(() => {}, 1 << 30)'], 3000);
  const bareNodeRss = bareNode.rssKiB;
  const clientNode = await idleProcessRss(
    ['--input-type=module', '-e', "await import('@kubernetes/client-node'); setInterval(() => {}, 1 << 30);"],
    3000,
  );
  const clientNodeBundled = await idleProcessRss(
    [await bundleProbe(join(dir, 'client-node-probe.cjs'), CLIENT_NODE_PROBE)],
    3000,
  );
  const otherDepsBundled = await idleProcessRss(
    [await bundleProbe(join(dir, 'other-deps-probe.cjs'), OTHER_DEPS_PROBE)],
    3000,
  );
  const tsxNodeRss =
    AGENT_MODE === 'tsx'
      ? (await idleProcessRss(['--import', 'tsx', '-e', 'setInterval(() => {}, 1 << 30)'], 3000)).rssKiB
      : undefined;

  // --- the apiserver
  progress('starting kube-apiserver + etcd');
  cleanups.push({ what: 'envtest', run: () => stopAllEnvtests() });
  const env = await startEnvtest({ name: 'bench-node-agent' });
  print(`kube-apiserver ${env.version.gitVersion} + etcd (hack/envtest), audit level Metadata`);
  const api = new AdminApi(env, CONCURRENCY + 4);
  cleanups.push({ what: 'admin client', run: () => api.close() });
  const objects = KubernetesObjectApi.makeApiClient(env.kubeConfig);

  // --- what the seed would have deployed: RBAC, OSC secret, access tokens, the Node
  const rendered = render({ target: 'shoot', now: DEFAULT_NOW }).objects as unknown as {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
    data?: Record<string, string>;
  }[];
  const rbac = rendered.filter((o) => o.apiVersion.startsWith('rbac.'));
  for (const o of rbac) {
    await objects.patch(
      o as never,
      undefined,
      undefined,
      'bench',
      true,
      'application/apply-patch+yaml' as never,
    );
    cleanups.push({ what: `${o.kind} ${o.metadata.name}`, run: () => objects.delete(o as never) });
  }
  const oscSecret = rendered.find(
    (o) => o.kind === 'Secret' && o.metadata.name.startsWith('gardener-node-agent-'),
  )!;
  const secretName = oscSecret.metadata.name;
  const renderedOscText = Buffer.from(oscSecret.data!['osc.yaml']!, 'base64').toString('utf8');
  const osc = parseYaml(renderedOscText) as OperatingSystemConfig;
  const configFile = osc.spec.files?.find((f) => f.path === PATH.nodeAgentConfig);
  if (!configFile?.content.inline) throw new Error(`the rendered OSC has no inline ${PATH.nodeAgentConfig}`);
  const inline = configFile.content.inline;
  const agentConfig = parseYaml(
    Buffer.from(inline.data, inline.encoding === 'b64' ? 'base64' : 'utf8').toString('utf8'),
  ) as {
    apiServer: Record<string, unknown>;
    controllers: {
      operatingSystemConfig: Record<string, unknown>;
      token: { syncConfigs: { secretName: string; path: string }[] };
    };
  };
  const cluster = env.kubeConfig.getCurrentCluster()!;
  agentConfig.apiServer = { server: cluster.server, caBundle: cluster.caData };
  agentConfig.controllers.operatingSystemConfig.syncJitterPeriod = '0s';
  const units = [...(osc.spec.units ?? []), ...(osc.status?.extensionUnits ?? [])].length + 1;
  const files = [...(osc.spec.files ?? []), ...(osc.status?.extensionFiles ?? [])];

  const saName = 'gardener-node-agent';
  const expiration = Math.max(3600, Math.ceil((WINDOW_MS + 2 * 3600_000) / 1000));
  const saConfig = await env.kubeConfigForServiceAccount('kube-system', saName, expiration);
  cleanups.push({
    what: 'service account',
    run: () => api.call('DELETE', `/api/v1/namespaces/kube-system/serviceaccounts/${saName}`),
  });
  const saToken = saConfig.getCurrentUser()?.token ?? '';
  const username = `system:serviceaccount:kube-system:${saName}`;

  const secretsPath = '/api/v1/namespaces/kube-system/secrets';
  const createSecret = async (name: string, data: Record<string, string>, annotations = {}) => {
    await api.must('POST', secretsPath, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, annotations },
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    });
    cleanups.push({ what: `secret ${name}`, run: () => api.call('DELETE', `${secretsPath}/${name}`) });
  };
  for (const sync of agentConfig.controllers.token.syncConfigs) {
    await createSecret(sync.secretName, {
      token: sync.secretName === saName ? saToken : `${sync.secretName}-token`,
    });
  }
  let generation = 0;
  let currentText = withProbe(osc, generation);
  await createSecret(
    secretName,
    { 'osc.yaml': currentText },
    { [ANNOTATION.checksumDataScript]: sha256Hex(currentText) },
  );
  const nodeName = `bench-node-agent-${runId}`;
  await api.must('POST', '/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: nodeName,
      labels: { 'kubernetes.io/hostname': nodeName },
      annotations: { [ANNOTATION.reconciliationDelay]: '0s' },
    },
  });
  cleanups.push({ what: `node ${nodeName}`, run: () => api.call('DELETE', `/api/v1/nodes/${nodeName}`) });
  cleanups.push({
    what: 'lease and events of the agent',
    run: async () => {
      await api.call(
        'DELETE',
        `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/gardener-node-agent-${nodeName}`,
      );
      await api.call(
        'DELETE',
        `/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${nodeName}`)}`,
      );
    },
  });

  // --- the host root, image files, config
  const root = join(dir, 'root');
  const images = join(dir, 'images');
  mkdirSync(join(root, dirname(PATH.nodeAgentToken)), { recursive: true });
  writeFileSync(join(root, PATH.nodeAgentToken), saToken, { mode: 0o600 });
  for (const f of files) {
    const ref = f.content.imageRef;
    if (!ref) continue;
    const path = join(images, encodeURIComponent(ref.image), ref.filePathInImage);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `#!/bin/sh\n# stand-in for ${ref.filePathInImage} of ${ref.image}\n`);
  }
  progress('calibration: atomic writes with fsync');
  const fsyncTimes = await atomicWrites(dir, 50);
  const config = join(dir, 'config.yaml');
  writeFileSync(config, stringifyYaml(agentConfig));
  const record = join(dir, 'systemd.jsonl');
  const recorder = new RecordWatcher(record);
  cleanups.push({ what: 'record watcher', run: () => recorder.close() });
  print(
    `OSC: the rendered ${secretName} (${units} units incl. the probe, ${files.length} files, ` +
      `${files.filter((f) => f.content.imageRef).length} from images) with ${PROBE_UNIT} added; ` +
      `agent identity ${username} bound by the rendered RBAC; ${agentConfig.controllers.token.syncConfigs.length} token secrets`,
  );

  // --- the bench's own watches: when the update is visible to a watcher, and when the Node says done
  const adminHttp = new KubeHttp(env.kubeConfig);
  cleanups.push({ what: 'bench watch client', run: () => adminHttp.close() });
  // aborted before the client closes: closing waits for open requests, and a watch lasts minutes
  const benchSignal = new AbortController();
  cleanups.push({ what: 'bench watches', run: () => benchSignal.abort() });
  const secretSeen = new Map<string, number>();
  const nodeSeen = new Map<string, number>();
  const benchSecrets = new Informer<V1Secret>({
    http: adminHttp,
    path: secretsPath,
    fieldSelector: `metadata.name=${secretName}`,
  }).on({
    add: (s) => recordSecret(s),
    update: (_p, s) => recordSecret(s),
  });
  function recordSecret(s: V1Secret) {
    const checksum = s.metadata?.annotations?.[ANNOTATION.checksumDataScript];
    if (checksum && !secretSeen.has(checksum)) secretSeen.set(checksum, now());
    changes.notify();
  }
  const benchNodes = new Informer<V1Node>({
    http: adminHttp,
    path: '/api/v1/nodes',
    fieldSelector: `metadata.name=${nodeName}`,
  }).on({ add: (n) => recordNode(n), update: (_p, n) => recordNode(n) });
  function recordNode(n: V1Node) {
    const checksum = n.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData];
    if (checksum && !nodeSeen.has(checksum)) nodeSeen.set(checksum, now());
    changes.notify();
  }
  benchSecrets.start(benchSignal.signal);
  benchNodes.start(benchSignal.signal);
  await Promise.all([benchSecrets.waitForSync(), benchNodes.waitForSync()]);

  // --- calibration: GET roundtrip
  progress('calibration: GET roundtrips');
  const getPath = `${secretsPath}/${secretName}`;
  const getSmall = await getRoundtrips(api, getPath, 200);
  const clientNodeGets = await clientNodeRoundtrips(env, secretName, 50);

  // --- the agent
  const phases: Phase[] = [];
  const phase = (name: string): Phase => {
    const p = { name, start: Date.now(), end: Number.NaN };
    phases.push(p);
    return p;
  };
  const agentEnv: NodeJS.ProcessEnv = { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' };
  delete agentEnv.KUBECONFIG;
  const agent = new AgentProcess(
    [
      ...agentArgs,
      'run',
      '--config',
      config,
      '--root',
      root,
      `--systemd=record:${record}`,
      '--images',
      images,
      '--node-name',
      nodeName,
      '--health-port',
      '0',
      '--metrics-port',
      '0',
    ],
    agentEnv,
    join(dir, 'agent.log'),
  );
  cleanups.push({ what: 'agent log', run: () => agent.close() });
  cleanups.push({ what: 'agent process', run: () => agent.stop() });
  const setup = phase('start-up and first apply');
  progress('starting the agent');
  const agentStarted = now();
  agent.start();
  try {
    await changes.until('the first apply (Node checksum)', 180_000, () =>
      nodeSeen.has(sha256Hex(currentText)),
    );
    await changes.until('the agent to report ready', 30_000, () =>
      agent.logs.some((l) => l.msg === 'Started gardener-node-agent'),
    );
  } catch (e) {
    progress(`agent log tail:\n${agent.tail()}`);
    throw e;
  }
  const firstApplyMs = nodeSeen.get(sha256Hex(currentText))! - agentStarted;
  setup.end = Date.now();
  const startsForFirstApply = agent.starts;
  progress(
    `first apply done after ${(firstApplyMs / 1000).toFixed(1)} s, ${startsForFirstApply} agent start(s)`,
  );

  // --- idle RSS
  const settle = phase('settling (small cluster)');
  progress(`settling ${flags.settle}`);
  await sleep(SETTLE_MS);
  const idleSamples: number[] = [];
  for (let i = 0; i < 10; i++) {
    idleSamples.push(procStatus(agent.pid).rssKiB);
    await sleep(500);
  }
  const idleMemory = procStatus(agent.pid);
  settle.end = Date.now();
  const idleRss = quantile(idleSamples, 0.5);
  const metricsUrl = () => {
    const started = agent.logs.filter((l) => l.msg === 'Started gardener-node-agent').at(-1);
    return started ? (JSON.parse(started.line) as { metrics?: string }).metrics : undefined;
  };
  const heapIdle = await agentHeap(metricsUrl());

  // --- latency
  async function updates(
    label: string,
  ): Promise<{ samples: UpdateSample[]; cpuS: number; load: { start: number; end: number } }> {
    const loadStart = loadavg()[0]!;
    const p = phase(`${UPDATES} OSC updates (${label})`);
    progress(`${UPDATES} OSC updates (${label})`);
    const samples: UpdateSample[] = [];
    const pid = agent.pid;
    const cpu = cpuSeconds(pid);
    for (let i = 0; i < UPDATES; i++) {
      generation++;
      currentText = withProbe(osc, generation);
      const checksum = sha256Hex(currentText);
      const opsBefore = recorder.ops.length;
      const logsBefore = agent.logs.length;
      const send = now();
      await api.must(
        'PATCH',
        getPath,
        {
          metadata: { annotations: { [ANNOTATION.checksumDataScript]: checksum } },
          data: { 'osc.yaml': Buffer.from(currentText).toString('base64') },
        },
        'application/merge-patch+json',
      );
      const response = now();
      try {
        await changes.until(`update ${generation} to be applied`, 60_000, () => nodeSeen.has(checksum));
        await changes.until(`update ${generation}'s restart to be seen`, 5_000, () =>
          recorder.ops.slice(opsBefore).some((o) => o.op === 'restart' && o.unit === PROBE_UNIT),
        );
      } catch (e) {
        progress(`agent log tail:\n${agent.tail()}`);
        throw e;
      }
      const ops = recorder.ops.slice(opsBefore);
      const last = ops.at(-1)!;
      const logs = agent.logs.slice(logsBefore);
      const logTime = (msg: string) => logs.find((l) => l.msg === msg)?.time ?? Number.NaN;
      samples.push({
        send,
        response,
        benchWatch: secretSeen.get(checksum) ?? Number.NaN,
        agentEnqueued: logTime('Enqueued secret with operating system config with a jitter period'),
        lastOpWatch: last.seenAt,
        lastOpMtime: last.mtimeMs,
        appliedLog: logTime('Successfully applied operating system config'),
        nodeSeen: nodeSeen.get(checksum)!,
        ops: ops.map((o) => `${o.op}${o.unit ? ` ${o.unit}` : ''}`),
        polled: ops.some((o) => o.polled),
      });
      await sleep(200);
    }
    p.end = Date.now();
    return { samples, cpuS: cpuSeconds(pid) - cpu, load: { start: loadStart, end: loadavg()[0]! } };
  }
  const smallUpdates = await updates('small cluster');
  const rssAfterSmallUpdates = procStatus(agent.pid).rssKiB;

  // --- 5,000 Nodes and 5,000 Secrets
  const populate = phase(`creating ${thousands(NODES)} Nodes + ${thousands(SECRETS)} Secrets`);
  progress(`creating ${NODES} Nodes and ${SECRETS} Secrets`);
  const label = 'bench.gardener.cloud/node-agent';
  const selector = encodeURIComponent(`${label}=${runId}`);
  cleanups.push({
    what: 'the bulk Nodes',
    run: () => api.call('DELETE', `/api/v1/nodes?labelSelector=${selector}`),
  });
  cleanups.push({
    what: 'the bulk Secrets',
    run: () => api.call('DELETE', `${secretsPath}?labelSelector=${selector}`),
  });
  const nodesMs = await createMany(NODES, CONCURRENCY, (i) =>
    api.must('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: `bench-${runId}-node-${i}`,
        labels: { [label]: runId, 'kubernetes.io/hostname': `bench-${runId}-node-${i}` },
        annotations: { [ANNOTATION.reconciliationDelay]: `${i % 300}s` },
      },
    }),
  );
  const secretsMs = await createMany(SECRETS, CONCURRENCY, (i) =>
    api.must('POST', secretsPath, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bench-${runId}-secret-${i}`, labels: { [label]: runId } },
      data: { token: Buffer.from(`${runId}-${i}-${'x'.repeat(32)}`).toString('base64') },
    }),
  );
  populate.end = Date.now();
  progress(
    `created in ${(nodesMs / 1000).toFixed(1)} s + ${(secretsMs / 1000).toFixed(1)} s; settling ${flags.settle}`,
  );
  const rssAfterPopulate = procStatus(agent.pid).rssKiB;
  const settleBig = phase('settling (large cluster)');
  await sleep(SETTLE_MS);
  const bigSamples: number[] = [];
  for (let i = 0; i < 10; i++) {
    bigSamples.push(procStatus(agent.pid).rssKiB);
    await sleep(500);
  }
  settleBig.end = Date.now();
  const getBig = await getRoundtrips(api, getPath, 200);
  const bigUpdates = await updates(`${thousands(NODES)} Nodes + ${thousands(SECRETS)} Secrets`);
  progress(`settling ${flags.settle} before the window`);
  await sleep(SETTLE_MS);

  // --- the window: steady state, requests and RSS
  const startsBeforeWindow = agent.starts;
  const pidInWindow = agent.pid;
  const window = phase(`steady-state window (${flags.window})`);
  progress(`measuring window of ${flags.window}`);
  const cpu0 = cpuSeconds(pidInWindow);
  const windowStart = Date.now();
  const windowRss: number[] = [];
  const sampleEvery = Math.min(10_000, Math.max(1000, WINDOW_MS / 30));
  while (Date.now() - windowStart < WINDOW_MS) {
    windowRss.push(procStatus(pidInWindow).rssKiB);
    await sleep(Math.min(sampleEvery, Math.max(0, WINDOW_MS - (Date.now() - windowStart))));
    if (Date.now() - windowStart >= 60_000 && windowRss.length % 6 === 0)
      progress(`window: ${((Date.now() - windowStart) / 60_000).toFixed(1)} min`);
  }
  const windowEnd = Date.now();
  window.end = windowEnd;
  const cpuWindow = cpuSeconds(pidInWindow) - cpu0;
  const hwm = procStatus(pidInWindow).hwmKiB;
  const heapEnd = await agentHeap(metricsUrl());
  const endMemory = procStatus(pidInWindow);
  const endRss = endMemory.rssKiB;
  const restartsInWindow = agent.starts - startsBeforeWindow;
  const load1 = loadavg();

  // --- stop the agent the way systemd does
  progress('stopping the agent (SIGTERM)');
  const exitCode = await agent.stop();
  const requests = agentRequests(env, username);

  // =============================================================================================
  // report
  const windowS = (windowEnd - windowStart) / 1000;
  const perHour = (n: number) => (n * 3600) / windowS;

  print();
  print('## Calibrations (same run)');
  print();
  print('| calibration | value |');
  print('|---|---|');
  const split = (m: ProcMemory) => `${mib(m.rssKiB)} MiB (anon ${mib(m.anonKiB)}, file ${mib(m.fileKiB)})`;
  print(`| RSS of a bare \`node -e\` process doing nothing | ${split(bareNode)} |`);
  print(`| RSS of \`node\` that imports @kubernetes/client-node and does nothing | ${split(clientNode)} |`);
  print(
    `| RSS of a bundle of only the client-node parts the agent used to import (KubeConfig, CoreV1Api, CoordinationV1Api, ...), idle | ${split(clientNodeBundled)} |`,
  );
  print(
    `| RSS of a bundle of the agent's other dependencies (undici, pino, zod, yaml, prom-client, commander), idle | ${split(otherDepsBundled)} |`,
  );
  if (tsxNodeRss !== undefined)
    print(`| RSS of \`node --import tsx -e\` doing nothing | ${mib(tsxNodeRss)} MiB |`);
  print(
    `| GET of the OSC secret via undici (keep-alive, admin), small cluster: p50 / p99 | ${ms(quantile(getSmall, 0.5))} / ${ms(quantile(getSmall, 0.99))} ms |`,
  );
  print(
    `| same GET via @kubernetes/client-node CoreV1Api (the agent's client for Node, events and Lease before runtime/kube's KubeClient): p50 / p99; TLS connections opened | ` +
      `${ms(quantile(clientNodeGets.times, 0.5))} / ${ms(quantile(clientNodeGets.times, 0.99))} ms; ` +
      `${clientNodeGets.connections} for ${clientNodeGets.times.length} sequential GETs |`,
  );
  print(
    `| same GET with ${thousands(NODES)} Nodes + ${thousands(SECRETS)} Secrets: p50 / p99 | ${ms(quantile(getBig, 0.5))} / ${ms(quantile(getBig, 0.99))} ms |`,
  );
  print(
    `| atomic 1 KiB write as the agent does it (temp file, fsync, rename, dir fsync), same filesystem: p50 / p99 | ${ms(quantile(fsyncTimes, 0.5))} / ${ms(quantile(fsyncTimes, 0.99))} ms |`,
  );

  print();
  print('## Latency: OSC secret update to the last systemd call (reconciliation delay 0)');
  print();
  print(
    'Each update is a merge PATCH of the OSC secret (osc.yaml + checksum/data-script) that changes the content of ' +
      `${PROBE_UNIT}; the next one is sent 200 ms after the agent has stamped its Node. Times are from just before ` +
      'the PATCH is sent. "last systemd call (fs.watch)" is the primary figure: the bench watches the ' +
      '--systemd=record file with fs.watch and reads each appended line at once, timestamped with ' +
      'performance.now() (sub-ms; it lags the write by the inotify wake-up of an otherwise idle process). ' +
      'The file mtime (kernel clock, tick granularity) and the agent\'s own log line "Successfully applied ' +
      'operating system config" (ms; written after the last call, the last-applied file and the progress file) ' +
      'bound it from both sides.',
  );
  const latencyRows = ({
    samples,
    cpuS,
    load,
  }: {
    samples: UpdateSample[];
    cpuS: number;
    load: { start: number; end: number };
  }) => {
    const last = samples.map((s) => s.lastOpWatch - s.send);
    const rows: [string, number[]][] = [
      ['PATCH response received', samples.map((s) => s.response - s.send)],
      ["bench's own watch sees the update (calibration)", samples.map((s) => s.benchWatch - s.send)],
      ['agent logs "Enqueued" (agent clock, ms)', samples.map((s) => s.agentEnqueued - s.send)],
      ['**last systemd call (fs.watch)**', samples.map((s) => s.lastOpWatch - s.send)],
      [
        '(in the agent: its "Enqueued" log → last systemd call)',
        samples.map((s) => s.lastOpWatch - s.agentEnqueued),
      ],
      ['last systemd call (file mtime)', samples.map((s) => s.lastOpMtime - s.send)],
      ['agent logs "Successfully applied" (ms)', samples.map((s) => s.appliedLog - s.send)],
      ["bench's watch sees the Node checksum", samples.map((s) => s.nodeSeen - s.send)],
    ];
    print('| from sending the update to ... (ms) | p50 | p99 | max | mean |');
    print('|---|---|---|---|---|');
    for (const [name, xs] of rows) {
      const ok = xs.filter(Number.isFinite);
      print(
        `| ${name} | ${ms(quantile(ok, 0.5))} | ${ms(quantile(ok, 0.99))} | ${ms(Math.max(...ok))} | ${ms(mean(ok))} |` +
          (ok.length < xs.length ? ` (${xs.length - ok.length} missing)` : ''),
      );
    }
    const opShapes = new Map<string, number>();
    for (const s of samples) opShapes.set(s.ops.join(', '), (opShapes.get(s.ops.join(', ')) ?? 0) + 1);
    print();
    print(
      `systemd calls per update: ${[...opShapes].map(([shape, n]) => `[${shape}] ×${n}`).join('; ')}` +
        `; lines timestamped by the fallback poll instead of fs.watch: ${samples.filter((s) => s.polled).length}`,
    );
    print(
      `updates whose last systemd call came more than 1 s after sending: ${last.filter((x) => x > 1000).length} of ${samples.length}; ` +
        `load average at the start / end of the phase: ${load.start.toFixed(2)} / ${load.end.toFixed(2)} on ${cpus().length} CPUs`,
    );
    print(
      `agent CPU (user + system) over the phase: ${((cpuS * 1000) / samples.length).toFixed(1)} ms per update ` +
        `(the process's CPU clock ticks every ${(1000 / CLK_TCK).toFixed(0)} ms)`,
    );
    const gap = samples.map((s) => s.lastOpWatch - s.lastOpMtime);
    print(
      `fs.watch time minus mtime of the last call: p50 ${ms(quantile(gap, 0.5))} ms, min ${ms(Math.min(...gap))}, max ${ms(Math.max(...gap))}`,
    );
    const getP50 = quantile(getSmall, 0.5);
    const watchP50 = quantile(
      samples.map((s) => s.benchWatch - s.send),
      0.5,
    );
    print(
      `ratios: last systemd call p50 = ${(quantile(last, 0.5) / getP50).toFixed(1)}× the GET roundtrip p50, ` +
        `${(quantile(last, 0.5) / watchP50).toFixed(1)}× the bench's own watch delivery p50; ` +
        `target p99 < 1000 ms: ${quantile(last, 0.99) < 1000 ? 'met' : 'MISSED'} (${ms(quantile(last, 0.99))} ms)`,
    );
  };
  print();
  print(`### Small cluster (${UPDATES} updates)`);
  print();
  latencyRows(smallUpdates);
  print();
  print(
    `### With ${thousands(NODES)} Nodes + ${thousands(SECRETS)} Secrets in the cluster (${UPDATES} updates)`,
  );
  print();
  latencyRows(bigUpdates);

  print();
  print('## Memory of the agent process (VmRSS from /proc/<pid>/status)');
  print();
  print('| when | RSS MiB | ÷ bare node |');
  print('|---|---|---|');
  const rssRow = (name: string, kib: number) =>
    print(`| ${name} | ${mib(kib)} | ${(kib / bareNodeRss).toFixed(2)}× |`);
  rssRow(`idle after the first apply + ${flags.settle} (median of 10 samples)`, idleRss);
  rssRow(`after ${UPDATES} updates`, rssAfterSmallUpdates);
  rssRow(`right after creating ${thousands(NODES)} Nodes + ${thousands(SECRETS)} Secrets`, rssAfterPopulate);
  rssRow(`large cluster + ${flags.settle} (median of 10 samples)`, quantile(bigSamples, 0.5));
  rssRow(`window, min (${windowRss.length} samples)`, Math.min(...windowRss));
  rssRow('window, median', quantile(windowRss, 0.5));
  rssRow('window, max', Math.max(...windowRss));
  rssRow('end of the window', endRss);
  rssRow('peak (VmHWM) of the process', hwm);
  print();
  print(
    `anonymous / file-backed RSS (MiB): idle ${mib(idleMemory.anonKiB)} / ${mib(idleMemory.fileKiB)}, ` +
      `end of the window ${mib(endMemory.anonKiB)} / ${mib(endMemory.fileKiB)}; bare node ` +
      `${mib(bareNode.anonKiB)} / ${mib(bareNode.fileKiB)}`,
  );
  print();
  const pct = (x: number, base: number) => `${x >= base ? '+' : ''}${((x / base - 1) * 100).toFixed(1)}%`;
  const heapRow = (name: string, h: Record<string, number> | undefined) =>
    print(
      h
        ? `| ${name} | ${mib(h.heapUsed! / 1024)} | ${mib(h.heapTotal! / 1024)} | ${mib(h.external! / 1024)} | ${mib(h.rss! / 1024)} |`
        : `| ${name} | - | - | - | - |`,
    );
  print("the agent's own /metrics (prom-client default metrics), MiB:");
  print();
  print('| when | V8 heap used | V8 heap total | external | RSS |');
  print('|---|---|---|---|---|');
  heapRow('idle', heapIdle);
  heapRow('end of the window', heapEnd);
  print();
  print(
    `the agent bundle is ${(composition.total / 1e6).toFixed(2)} MB of JavaScript; largest parts: ` +
      composition.parts
        .slice(0, 8)
        .map(([part, bytes]) => `${part} ${(bytes / 1e6).toFixed(2)} MB`)
        .join(', '),
  );
  print();
  print(
    `idle target < 80 MiB: ${idleRss < 80 * 1024 ? 'met' : 'MISSED'}; cluster size: RSS after creating the objects ` +
      `+ ${flags.settle} vs just before creating them ${pct(quantile(bigSamples, 0.5), rssAfterSmallUpdates)}, ` +
      `window median vs idle (with ${2 * UPDATES} applies in between) ${pct(quantile(windowRss, 0.5), idleRss)}` +
      (AGENT_MODE === 'tsx' && tsxNodeRss !== undefined
        ? `; under tsx the loader alone is ${mib(tsxNodeRss)} MiB`
        : '; the agent runs from the esbuild bundle that ships inside the executable'),
  );
  print(
    `agent starts: ${startsForFirstApply} for the first apply (the OSC installs its own unit, so it restarts itself once, ` +
      `as on a new node), ${agent.starts - startsForFirstApply} later; restarts in the window: ${restartsInWindow}; ` +
      `exit code on SIGTERM: ${exitCode}`,
  );
  print(
    `agent CPU in the window: ${cpuWindow.toFixed(2)} s over ${windowS.toFixed(0)} s ` +
      `(${((cpuWindow / windowS) * 100).toFixed(2)}% of one core, ${perHour(cpuWindow).toFixed(1)} CPU s per hour)`,
  );

  print();
  print(`## API requests by ${username} in the steady-state window`);
  print();
  print(
    `window ${windowS.toFixed(0)} s with ${thousands(NODES)} Nodes + ${thousands(SECRETS)} Secrets in the cluster, ` +
      'no updates; counted from the audit log (stage RequestReceived), extrapolated to an hour',
  );
  const inWindow = requests.filter((r) => r.at >= windowStart && r.at < windowEnd);
  const byKey = new Map<string, AgentRequest[]>();
  for (const r of inWindow) {
    const key = `${r.verb} ${r.resource}`;
    byKey.set(key, [...(byKey.get(key) ?? []), r]);
  }
  const expectation = (key: string): string => {
    if (key === 'update coordination.k8s.io/leases') return '360 (one renewal per 10 s)';
    if (key.startsWith('watch ')) return '≤ 12 per watched object';
    return '0';
  };
  print();
  print('| verb resource | in window | per hour | expected per hour | response codes |');
  print('|---|---|---|---|---|');
  for (const [key, rs] of [...byKey].sort((a, b) => b[1].length - a[1].length)) {
    const codes = new Map<string, number>();
    for (const r of rs) codes.set(String(r.code ?? 'open'), (codes.get(String(r.code ?? 'open')) ?? 0) + 1);
    print(
      `| ${key} | ${rs.length} | ${perHour(rs.length).toFixed(0)} | ${expectation(key)} | ` +
        `${[...codes].map(([c, n]) => `${c}×${n}`).join(' ')} |`,
    );
  }
  print(`| **total** | ${inWindow.length} | ${perHour(inWindow.length).toFixed(0)} | ≈ 360 + watches | |`);
  const watches = new Map<string, number>();
  for (const r of inWindow.filter((r) => r.verb === 'watch')) {
    const key = `${r.resource} ${selectorOf(r.uri)}`;
    watches.set(key, (watches.get(key) ?? 0) + 1);
  }
  print();
  print('| watched object | watches opened in window | per hour (expected ≤ 12) |');
  print('|---|---|---|');
  for (const [key, n] of [...watches].sort()) print(`| ${key} | ${n} | ${perHour(n).toFixed(1)} |`);
  print();
  print(
    'A watch ends after the timeoutSeconds it asks for (random in 300..600 s), so a short window quantises ' +
      'watch counts: over 10 minutes each watch is opened 1 or 2 times.',
  );

  print();
  print('## Requests by the agent per phase');
  print();
  print('| phase | seconds | requests | by verb |');
  print('|---|---|---|---|');
  for (const p of phases) {
    const rs = requests.filter((r) => r.at >= p.start && r.at < p.end);
    const verbs = new Map<string, number>();
    for (const r of rs) verbs.set(`${r.verb} ${r.resource}`, (verbs.get(`${r.verb} ${r.resource}`) ?? 0) + 1);
    print(
      `| ${p.name} | ${((p.end - p.start) / 1000).toFixed(1)} | ${rs.length} | ` +
        `${[...verbs]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${k} ×${n}`)
          .join(', ')} |`,
    );
  }
  print();
  print(
    `first apply: ${(firstApplyMs / 1000).toFixed(2)} s from starting the agent to the Node checksum; ` +
      `created ${thousands(NODES)} Nodes in ${(nodesMs / 1000).toFixed(1)} s and ${thousands(SECRETS)} Secrets in ` +
      `${(secretsMs / 1000).toFixed(1)} s; load average at the end ${load1.map((l) => l.toFixed(2)).join(' / ')}`,
  );
}

let code = 0;
try {
  await main();
} catch (e) {
  code = 1;
  process.stderr.write(`node-agent bench failed: ${(e as Error).stack ?? e}\n`);
}
progress('cleaning up');
await cleanup();
progress('done');
process.exit(code);
