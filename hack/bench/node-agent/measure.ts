/**
 * The measuring steps with the agent running: its first apply, its idle memory, a series of OSC
 * updates (time to the last systemd call), a cluster grown by thousands of Nodes and Secrets, and
 * a steady-state window (RSS, CPU, requests). Each step names its phase, so the report can count
 * the agent's requests per phase.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ANNOTATION, sha256Hex } from '../../../api/index.js';
import { cpuSeconds, type ProcMemory, procStatus } from '../support/process.js';
import { type Cleanups, now, progress, quantile, thousands } from '../support/run.js';
import { createMany } from './admin-api.js';
import { AgentProcess, changes } from './agent-process.js';
import { agentHeap } from './calibrations.js';
import { type Bystander, type Cluster, type NodeUnderTest, SECRETS_PATH } from './landscape.js';
import { OPTIONS } from './options.js';
import { PROBE_UNIT, withProbe } from './osc-probe.js';

export interface Phase {
  readonly name: string;
  readonly start: number;
  end: number;
}

/** The phases of the run, for the requests per phase. */
export class Phases {
  readonly list: Phase[] = [];

  begin(name: string): Phase {
    const p = { name, start: Date.now(), end: Number.NaN };
    this.list.push(p);
    return p;
  }
}

export interface UpdateSample {
  send: number;
  response: number;
  benchWatch: number;
  agentEnqueued: number;
  lastOpWatch: number;
  lastOpMtime: number;
  appliedLog: number;
  nodeSeen: number;
  verdictSeen: number;
  ops: string[];
  polled: boolean;
}

export interface Updates {
  readonly samples: UpdateSample[];
  readonly cpuS: number;
  readonly load: { start: number; end: number };
}

/** How the agent is started: `node` with the bundle (or tsx), or the single executable alone. */
export interface AgentProgram {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * The agent process for the node, as the unit starts it (`run --config`, plus the flags of a test
 * root and `extraFlags`).
 */
export function agentProcess(
  program: AgentProgram,
  node: NodeUnderTest,
  dir: string,
  cleanups: Cleanups,
  extraFlags: readonly string[] = [],
) {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' };
  delete env.KUBECONFIG;
  const agent = new AgentProcess(
    program.command,
    [
      ...program.args,
      'run',
      '--config',
      node.config,
      '--root',
      node.root,
      `--systemd=record:${node.recorder.file}`,
      '--images',
      node.images,
      '--node-name',
      node.nodeName,
      '--health-port',
      '0',
      '--metrics-port',
      '0',
      '--apply-settle-time',
      OPTIONS.applySettle,
      ...extraFlags,
    ],
    env,
    join(dir, 'agent.log'),
  );
  cleanups.push('agent log', () => agent.close());
  cleanups.push('agent process', () => agent.stop());
  return agent;
}

/** Starts the agent and waits for its first apply (its Node carries the checksum). */
export async function startUntilFirstApply(
  agent: AgentProcess,
  node: NodeUnderTest,
  seen: Bystander,
  phases: Phases,
): Promise<{ firstApplyMs: number; starts: number }> {
  const setup = phases.begin('start-up and first apply');
  progress('starting the agent');
  const agentStarted = now();
  agent.start();
  try {
    await changes.until('the first apply (Node checksum)', 180_000, () =>
      seen.nodeSeen.has(sha256Hex(node.currentText)),
    );
    await changes.until('the agent to report ready', 30_000, () =>
      agent.logs.some((l) => l.msg === 'Started gardener-node-agent'),
    );
  } catch (e) {
    progress(`agent log tail:\n${agent.tail()}`);
    throw e;
  }
  const firstApplyMs = seen.nodeSeen.get(sha256Hex(node.currentText))! - agentStarted;
  setup.end = Date.now();
  progress(`first apply done after ${(firstApplyMs / 1000).toFixed(1)} s, ${agent.starts} agent start(s)`);
  return { firstApplyMs, starts: agent.starts };
}

/** The agent's /metrics URL from its start-up log line. */
export function metricsUrl(agent: AgentProcess): string | undefined {
  const started = agent.logs.filter((l) => l.msg === 'Started gardener-node-agent').at(-1);
  return started ? (JSON.parse(started.line) as { metrics?: string }).metrics : undefined;
}

/** RSS after settling: the median of ten samples. */
export async function measureSettledRss(
  agent: AgentProcess,
  phases: Phases,
  name: string,
): Promise<number[]> {
  const settle = phases.begin(name);
  progress(`settling ${OPTIONS.settle}`);
  await sleep(OPTIONS.settleMs);
  const samples: number[] = [];
  for (let i = 0; i < 10; i++) {
    samples.push(procStatus(agent.pid).rssKiB);
    await sleep(500);
  }
  settle.end = Date.now();
  return samples;
}

export async function measureIdleMemory(agent: AgentProcess, phases: Phases) {
  const samples = await measureSettledRss(agent, phases, 'settling (small cluster)');
  const memory = procStatus(agent.pid);
  return { rssKiB: quantile(samples, 0.5), memory, heap: await agentHeap(metricsUrl(agent)) };
}

/** OSC updates one after the other: each changes the probe unit; timed to its last systemd call. */
export async function applyUpdates(
  label: string,
  o: { agent: AgentProcess; node: NodeUnderTest; cluster: Cluster; seen: Bystander; phases: Phases },
): Promise<Updates> {
  const { agent, node, cluster, seen } = o;
  const loadStart = loadavg()[0]!;
  const p = o.phases.begin(`${OPTIONS.updates} OSC updates (${label})`);
  progress(`${OPTIONS.updates} OSC updates (${label})`);
  const samples: UpdateSample[] = [];
  const pid = agent.pid;
  const cpu = cpuSeconds(pid);
  for (let i = 0; i < OPTIONS.updates; i++) {
    node.generation++;
    node.currentText = withProbe(node.osc, node.generation);
    const checksum = sha256Hex(node.currentText);
    const opsBefore = node.recorder.ops.length;
    const logsBefore = agent.logs.length;
    const send = now();
    await cluster.api.must(
      'PATCH',
      `${SECRETS_PATH}/${node.secretName}`,
      {
        metadata: { annotations: { [ANNOTATION.checksumDataScript]: checksum } },
        data: { 'osc.yaml': Buffer.from(node.currentText).toString('base64') },
      },
      'application/merge-patch+json',
    );
    const response = now();
    try {
      await changes.until(`update ${node.generation} to be applied`, 60_000, () =>
        seen.nodeSeen.has(checksum),
      );
      await changes.until(`update ${node.generation}'s restart to be seen`, 5_000, () =>
        node.recorder.ops.slice(opsBefore).some((op) => op.op === 'restart' && op.unit === PROBE_UNIT),
      );
    } catch (e) {
      progress(`agent log tail:\n${agent.tail()}`);
      throw e;
    }
    // the agent judges an apply after its settle time, and the next OSC waits for that verdict:
    // an update sent before it would time the settle, not the apply
    try {
      await changes.until(`update ${node.generation}'s verdict`, OPTIONS.applySettleMs + 60_000, () =>
        seen.verdictSeen.has(checksum),
      );
    } catch (e) {
      progress(`agent log tail:\n${agent.tail()}`);
      throw e;
    }
    const ops = node.recorder.ops.slice(opsBefore);
    const last = ops.at(-1)!;
    const logs = agent.logs.slice(logsBefore);
    const logTime = (msg: string) => logs.find((l) => l.msg === msg)?.time ?? Number.NaN;
    samples.push({
      send,
      response,
      benchWatch: seen.secretSeen.get(checksum) ?? Number.NaN,
      agentEnqueued: logTime('Enqueued secret with operating system config with a jitter period'),
      lastOpWatch: last.seenAt,
      lastOpMtime: last.mtimeMs,
      appliedLog: logTime('Successfully applied operating system config'),
      nodeSeen: seen.nodeSeen.get(checksum)!,
      verdictSeen: seen.verdictSeen.get(checksum)!,
      ops: ops.map((op) => `${op.op}${op.unit ? ` ${op.unit}` : ''}`),
      polled: ops.some((op) => op.polled),
    });
    await sleep(200);
  }
  p.end = Date.now();
  return { samples, cpuS: cpuSeconds(pid) - cpu, load: { start: loadStart, end: loadavg()[0]! } };
}

/** Thousands of Nodes and Secrets the agent must not care about. */
export async function populateCluster(
  cluster: Cluster,
  runId: string,
  phases: Phases,
  cleanups: Cleanups,
): Promise<{ nodesMs: number; secretsMs: number }> {
  const { api } = cluster;
  const populate = phases.begin(
    `creating ${thousands(OPTIONS.nodes)} Nodes + ${thousands(OPTIONS.secrets)} Secrets`,
  );
  progress(`creating ${OPTIONS.nodes} Nodes and ${OPTIONS.secrets} Secrets`);
  const label = 'bench.gardener.cloud/node-agent';
  const selector = encodeURIComponent(`${label}=${runId}`);
  cleanups.push('the bulk Nodes', () => api.call('DELETE', `/api/v1/nodes?labelSelector=${selector}`));
  cleanups.push('the bulk Secrets', () => api.call('DELETE', `${SECRETS_PATH}?labelSelector=${selector}`));
  const nodesMs = await createMany(OPTIONS.nodes, OPTIONS.concurrency, (i) =>
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
  const secretsMs = await createMany(OPTIONS.secrets, OPTIONS.concurrency, (i) =>
    api.must('POST', SECRETS_PATH, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bench-${runId}-secret-${i}`, labels: { [label]: runId } },
      data: { token: Buffer.from(`${runId}-${i}-${'x'.repeat(32)}`).toString('base64') },
    }),
  );
  populate.end = Date.now();
  progress(
    `created in ${(nodesMs / 1000).toFixed(1)} s + ${(secretsMs / 1000).toFixed(1)} s; settling ${OPTIONS.settle}`,
  );
  return { nodesMs, secretsMs };
}

export interface SteadyState {
  readonly start: number;
  readonly end: number;
  readonly rss: number[];
  readonly cpuS: number;
  readonly hwmKiB: number;
  readonly endMemory: ProcMemory;
  readonly heapEnd: Record<string, number> | undefined;
  readonly restarts: number;
  readonly load: number[];
}

/** A window in which nothing changes: RSS samples, CPU, restarts. */
export async function measureSteadyState(agent: AgentProcess, phases: Phases): Promise<SteadyState> {
  const startsBefore = agent.starts;
  const pid = agent.pid;
  const window = phases.begin(`steady-state window (${OPTIONS.window})`);
  progress(`measuring window of ${OPTIONS.window}`);
  const cpu0 = cpuSeconds(pid);
  const start = Date.now();
  const rss: number[] = [];
  const sampleEvery = Math.min(10_000, Math.max(1000, OPTIONS.windowMs / 30));
  while (Date.now() - start < OPTIONS.windowMs) {
    rss.push(procStatus(pid).rssKiB);
    await sleep(Math.min(sampleEvery, Math.max(0, OPTIONS.windowMs - (Date.now() - start))));
    if (Date.now() - start >= 60_000 && rss.length % 6 === 0)
      progress(`window: ${((Date.now() - start) / 60_000).toFixed(1)} min`);
  }
  const end = Date.now();
  window.end = end;
  return {
    start,
    end,
    rss,
    cpuS: cpuSeconds(pid) - cpu0,
    hwmKiB: procStatus(pid).hwmKiB,
    heapEnd: await agentHeap(metricsUrl(agent)),
    endMemory: procStatus(pid),
    restarts: agent.starts - startsBefore,
    load: loadavg(),
  };
}
