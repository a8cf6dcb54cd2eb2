/**
 * Upstream's own gardener-node-agent against ours, on one real node per contract with the real
 * kubelet and containerd (docs/real-node.md#a-real-kubelet), in the same run: idle memory
 * (/proc/<pid>/status inside the node), apply latency (the pool's OSC secret updated → the Node's
 * checksum annotation, and → the start of the last unit job), and the units each apply restarts
 * (InvocationIDs before and after, systemd's own restarts left out).
 *
 * Contracts (hack/bench/upstream-node-agent/contracts.ts): v1.91.4 (built by
 * hack/upstream-node-agent/build.sh) on a pool rendered for Kubernetes 1.29.8, as v1.91.4 refuses
 * 1.30+ ("unsupported kubernetes version"); v1.150.0 (hack/upstream-node-agent-v150/build.sh) on a
 * v1.150.0 pool at the kubelet's own 1.34.4, with per-node identities. The kubelet is always
 * hack/real-kubelet's (its own version), with the cgroup override this machine needs. On each node
 * the agents run one after another, in this order, each from the pool's OSC as published first:
 *   1. ours with `--disruption-policy none` (upstream's unit handling),
 *   2. ours with `--disruption-policy defaults` (its default: least disruption),
 *   3. upstream's, copied over /opt/bin/gardener-node-agent (upstream-node-agent/agent-swap.ts:
 *      same unit, configuration and credentials).
 * Each: restarted, left to settle, sampled idle; then the OSC sequence
 * (hack/bench/upstream-node-agent/osc-sequence.ts; a v1.150.0 pool adds containerd changes); then
 * sampled at rest; then the first OSC published again, so the next agent starts from the same node.
 * The node's /opt/bin, where both agents' binaries lie, is on the machine's disk as on a cloud
 * machine (`--opt-bin disk`, the default); `--opt-bin overlay` leaves it in the node's overlay root,
 * where V8 copies its built-in code into anonymous memory (1.6 MB; hack/real-node/node-under-test.ts).
 *
 * Not part of `npm test`: it needs upstream's agents' cold builds (about 3 and 7 CPU-min) and node
 * boots.
 *
 *   npx tsx hack/bench/upstream-node-agent.ts [--contract both|v1.91.4|v1.150.0] [--settle 30]
 *     [--samples 12] [--interval 5] [--between 5] [--opt-bin disk|overlay] [--quick]
 *
 * About 13 minutes per contract at the defaults on a warm cache (plus the cold builds of the
 * agents, the kubelet and the node image when they are not cached). The report goes to stdout,
 * progress to stderr.
 */
import { cpus, loadavg } from 'node:os';
import { type OperatingSystemConfig, sha256Hex } from '../../api/index.js';
import { stopAllEnvtests } from '../landscape/envtest.js';
import { sleep } from '../landscape/eventually.js';
import { setAgentFlags } from '../real-node/agent-flags.js';
import { changedByJobs, type Invocations, OS_UNITS } from '../real-node/agent-node.js';
import { AGENT_UNIT, agentMainPid, httpGetInside } from '../real-node/agent-probes.js';
import type { Container } from '../real-node/container.js';
import { unitContent, unitNames } from '../real-node/osc-edits.js';
import { type RealKubeletNode, startRealKubeletNode } from '../real-node/real-kubelet-node.js';
import { reapStaleNodes } from '../real-node/runs.js';
import { journalCursor, showUnits, unitStartsSince } from '../real-node/systemd-state.js';
import { benchCommandLine, QUICK_NOTICE } from './support/command-line.js';
import { commitOf } from './support/revision.js';
import { Cleanups, print, progress } from './support/run.js';
import { installUpstreamAgent } from './upstream-node-agent/agent-swap.js';
import {
  type AgentRun,
  latencyTable,
  memoryTable,
  restartTable,
  type StepResult,
} from './upstream-node-agent/comparison-table.js';
import { type BenchContract, contractsOf } from './upstream-node-agent/contracts.js';
import { oscSequence } from './upstream-node-agent/osc-sequence.js';
import { type ProcMemory, parseProcStatus, summarizeMemory } from './upstream-node-agent/proc-status.js';

const { values: flags, quick } = benchCommandLine({
  script: 'hack/bench/upstream-node-agent.ts',
  duration:
    'About 13 minutes per contract (--contract both: two nodes, one after the other) at the defaults on a warm cache, plus the cold builds (upstream agents: v1.91.4 ~3 CPU-min, v1.150.0 ~7 CPU-min) when not cached; --quick about 4 minutes per contract.',
  options: {
    contract: { type: 'string', default: 'both' },
    settle: { type: 'string', default: '30', quick: '5' },
    samples: { type: 'string', default: '12', quick: '2' },
    interval: { type: 'string', default: '5', quick: '1' },
    between: { type: 'string', default: '5', quick: '1' },
    'opt-bin': { type: 'string', default: 'disk' },
  },
});
const CONTRACTS = contractsOf(flags.contract);
if (flags['opt-bin'] !== 'disk' && flags['opt-bin'] !== 'overlay')
  throw new Error(`--opt-bin takes disk or overlay, not ${JSON.stringify(flags['opt-bin'])}`);
/** Where the agents' binary lies: node-under-test.ts (provisionNode, optBinOnDisk) says why it matters. */
const OPT_BIN_ON_DISK = flags['opt-bin'] === 'disk';
const SETTLE_S = Number(flags.settle);
const SAMPLES = Number(flags.samples);
const INTERVAL_S = Number(flags.interval);
/** Seconds between an apply (its verdict, for ours) and the next step, so each starts at rest. */
const BETWEEN_S = Number(flags.between);
for (const [name, v] of [
  ['--settle', SETTLE_S],
  ['--samples', SAMPLES],
  ['--interval', INTERVAL_S],
  ['--between', BETWEEN_S],
] as const)
  if (!Number.isFinite(v) || v <= 0) throw new Error(`${name} takes a positive number`);

const ANNOTATION_TIMEOUT_MS = 180_000;

const cleanups = new Cleanups();

/** The memory of the agent's main process, read inside the node. */
async function agentMemory(c: Container): Promise<ProcMemory> {
  const pid = await agentMainPid(c);
  if (pid === 0) throw new Error(`${AGENT_UNIT} is not active`);
  return parseProcStatus(await c.run(['cat', `/proc/${pid}/status`]));
}

async function sampleMemory(c: Container): Promise<ProcMemory[]> {
  const samples: ProcMemory[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    if (i > 0) await sleep(INTERVAL_S * 1000);
    samples.push(await agentMemory(c));
  }
  return samples;
}

async function invocations(c: Container, units: readonly string[]): Promise<Invocations> {
  return new Map([...(await showUnits(c, units, ['InvocationID']))].map(([u, p]) => [u, p.InvocationID]));
}

/**
 * Restarts the agent unit and waits until a new main process is ready (/readyz: its caches synced;
 * either agent's). Not /healthz: upstream v1.150.0's passes for 3 min with caches that never sync
 * (gardener v1.150.0 cmd/gardener-node-agent/app/app.go, NewCacheSyncHealthzWithDeadline), and such
 * an agent applies nothing.
 */
async function restartAgent(c: Container): Promise<void> {
  const before = await agentMainPid(c);
  await c.run(['systemctl', 'restart', AGENT_UNIT]);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const pid = await agentMainPid(c);
    if (pid !== 0 && pid !== before) {
      const health = await httpGetInside(c, 2751, '/readyz').catch(() => '');
      if (/check passed|^ok/.test(health)) return;
    }
    if (Date.now() > deadline) {
      const journal = await c.exec(['journalctl', '--no-pager', '-n', '40', '-u', AGENT_UNIT, '-o', 'cat']);
      throw new Error(`the restarted agent did not become ready; its journal:\n${journal.stdout}`);
    }
    await sleep(250);
  }
}

/**
 * Publishes `next` and measures its apply: from the API server's answer to the Node's checksum
 * annotation (polled every 50 ms) and to the last unit start a job caused (systemd's journal).
 */
async function measuredApply(
  r: RealKubeletNode,
  step: string,
  next: OperatingSystemConfig,
  units: readonly string[],
  reportsVerdicts: boolean,
): Promise<StepResult> {
  const { container: c } = r;
  const before = await invocations(c, units);
  const cursor = await journalCursor(c);
  const checksum = await r.shoot.publishOsc(next);
  const t0 = Date.now();
  let annotationMs: number | undefined;
  while (annotationMs === undefined) {
    if ((await r.nodeChecksum()) === checksum) annotationMs = Date.now() - t0;
    else if (Date.now() - t0 > ANNOTATION_TIMEOUT_MS)
      throw new Error(
        `${step}: the Node did not report ${checksum.slice(0, 12)} applied; the agent's journal:\n${await r.journalOf(AGENT_UNIT, 60)}`,
      );
    else await sleep(50);
  }
  // ours judges the apply after its settle time and stamps a verdict; the next step waits for it,
  // or it would queue behind the verification (upstream has none)
  let verdictMs: number | undefined;
  if (reportsVerdicts) {
    const verdict = await r.verdict(checksum, ANNOTATION_TIMEOUT_MS);
    verdictMs = Date.now() - t0;
    if (verdict.result !== 'Succeeded')
      progress(`${step}: our verdict ${verdict.result}: ${verdict.message}`);
  }
  // restarts the agent leaves for after its annotation (none known) and systemd's start messages
  await sleep(BETWEEN_S * 1000);
  const after = await invocations(c, units);
  const starts = await unitStartsSince(c, cursor);
  const jobs = starts.filter((s) => s.cause === 'job' && s.unit !== AGENT_UNIT);
  const last = Math.max(...jobs.map((s) => s.realtimeUs / 1000));
  return {
    step,
    annotationMs,
    lastJobMs: jobs.length > 0 ? Math.max(0, last - t0) : undefined,
    verdictMs,
    restarted: changedByJobs(before, after, starts),
  };
}

/** Puts the node back on `base` (not measured) and waits until the Node reports it. */
async function publishBase(
  r: RealKubeletNode,
  base: OperatingSystemConfig,
  reportsVerdicts: boolean,
): Promise<void> {
  const checksum = await r.shoot.publishOsc(base);
  if (reportsVerdicts) {
    await r.verdict(checksum, ANNOTATION_TIMEOUT_MS);
    return;
  }
  const deadline = Date.now() + ANNOTATION_TIMEOUT_MS;
  while ((await r.nodeChecksum()) !== checksum) {
    if (Date.now() > deadline)
      throw new Error(
        `the Node did not report the first OSC applied again; the agent's journal:\n${await r.journalOf(AGENT_UNIT, 60)}`,
      );
    await sleep(250);
  }
}

/** One agent: restarted on the node as it is (up to date), idle, the sequence, at rest. */
async function runAgent(
  r: RealKubeletNode,
  agent: string,
  base: OperatingSystemConfig,
  reportsVerdicts: boolean,
): Promise<AgentRun> {
  const { container: c } = r;
  const units = [...new Set([...unitNames(base), ...OS_UNITS])].filter((u) => u !== AGENT_UNIT);
  const before = await invocations(c, units);
  const cursor = await journalCursor(c);
  progress(`${agent}: restarting the agent`);
  await restartAgent(c);
  await sleep(SETTLE_S * 1000);
  const startStarts = await unitStartsSince(c, cursor);
  const start: StepResult = {
    step: 'agent start, OSC up to date',
    annotationMs: undefined,
    lastJobMs: undefined,
    verdictMs: undefined,
    restarted: changedByJobs(before, await invocations(c, units), startStarts).filter(
      (u) => u !== AGENT_UNIT,
    ),
  };
  progress(`${agent}: sampling idle memory (${SAMPLES} × ${INTERVAL_S} s)`);
  const idle = summarizeMemory(await sampleMemory(c));
  const steps: StepResult[] = [start];
  let osc = base;
  for (const s of oscSequence(base)) {
    osc = s.next(osc);
    progress(`${agent}: ${s.name}`);
    const result = await measuredApply(r, s.name, osc, units, reportsVerdicts);
    progress(
      `${agent}: ${s.name}: annotation after ${result.annotationMs} ms, restarted ${result.restarted.join(', ') || 'none'}`,
    );
    steps.push(result);
  }
  await sleep(SETTLE_S * 1000);
  progress(`${agent}: sampling memory at rest`);
  const atRest = summarizeMemory(await sampleMemory(c));
  progress(`${agent}: the first OSC again`);
  await publishBase(r, base, reportsVerdicts);
  return { agent, idle, atRest, steps };
}

/** One contract's node: booted, the three agents run, the report printed, the node stopped. */
async function benchContract(contract: BenchContract): Promise<void> {
  const upstream = contract.agent();
  reapStaleNodes();
  const name = `real-node-upbench-${Date.now().toString(36)}`;
  const poolVersion = contract.kubernetesVersion ?? "the kubelet's own version";
  progress(`booting ${name} with a ${contract.gardenerVersion} pool at ${poolVersion} and the real kubelet`);
  let overrideNote = '';
  const r = await startRealKubeletNode({
    name,
    gardenerVersion: contract.gardenerVersion,
    ...(contract.kubernetesVersion ? { kubernetesVersion: contract.kubernetesVersion } : {}),
    optBinOnDisk: OPT_BIN_ON_DISK,
    log: (line) => {
      overrideNote = line;
      progress(line);
    },
  });
  const stopNode = cleanups.push('the node and its shoot', () => r.stop());
  const { container: c, osc: base } = r;
  const first = await r.verdict(r.firstChecksum, 300_000);
  progress(`our first apply: ${first.result} ${first.message ?? ''}`);
  const nodeInfo = (await r.readNode())?.status?.nodeInfo;
  const rendered = unitContent(base, AGENT_UNIT);

  const runs: AgentRun[] = [];
  await setAgentFlags(c, rendered, ['--disruption-policy', 'none']);
  runs.push(await runAgent(r, 'ours --disruption-policy none', base, true));
  await setAgentFlags(c, rendered, ['--disruption-policy', 'defaults']);
  runs.push(await runAgent(r, 'ours --disruption-policy defaults', base, true));

  await installUpstreamAgent(c, rendered, upstream.binary);
  const label = `upstream ${upstream.version}`;
  runs.push(await runAgent(r, label, base, false));
  const upstreamVersion = await c.exec(['/opt/bin/gardener-node-agent', '--version']);

  print(
    `# Upstream's gardener-node-agent ${upstream.version} against ours, one real node, ${new Date().toISOString()}`,
  );
  if (quick) print(QUICK_NOTICE);
  print();
  print(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  print(`ours: this tree at ${commitOf('HEAD').slice(0, 12)} (single executable), policy per row`);
  print(
    `upstream: gardener-node-agent ${upstream.version} (${upstream.go}; --version: ${upstreamVersion.stdout.trim() || upstreamVersion.stderr.trim().split('\n')[0]})`,
  );
  print(
    `node: ${contract.gardenerVersion} pool at Kubernetes ${contract.kubernetesVersion ?? r.version}, kubelet ${nodeInfo?.kubeletVersion ?? '?'}, ${nodeInfo?.containerRuntimeVersion ?? '?'}; /opt/bin ${OPT_BIN_ON_DISK ? "on the host's disk, as on a cloud machine" : 'in the overlay root (image + tmpfs)'}; ${overrideNote}`,
  );
  print(
    `first OSC ${sha256Hex(r.shoot.oscYaml).slice(0, 12)} published as ${r.firstChecksum.slice(0, 12)}; our first apply: ${first.result}`,
  );
  print(`idle: ${SAMPLES} samples every ${INTERVAL_S} s after ${SETTLE_S} s of settling; medians`);
  print();
  print(memoryTable(runs, label));
  print();
  print(
    'Apply latency: from the OSC secret update (the API server answered) to the Node checksum annotation / to the start of the last unit job the apply caused:',
  );
  print();
  print(latencyTable(runs));
  print();
  print(restartTable(runs));
  await stopNode();
}

async function main(): Promise<void> {
  // the suites of a run share the envtest of a name (hack/landscape/envtest.ts), so a node's stop
  // leaves it; its supervisors would keep this process from exiting after the report
  cleanups.push('envtest', () => stopAllEnvtests());
  for (const [i, contract] of CONTRACTS.entries()) {
    if (i > 0) print();
    await benchContract(contract);
  }
}

main()
  .catch((e: Error) => {
    process.stderr.write(`${e.stack ?? e.message}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanups.run());
