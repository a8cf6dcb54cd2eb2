/**
 * The node agent as a process against a real kube-apiserver: how fast an OSC secret update reaches
 * systemd, how much memory the agent holds idle and while the cluster holds 5,000 Nodes and 5,000
 * other Secrets in kube-system, and how many API requests it makes an hour in steady state, each
 * next to a calibration measured in the same run (a bare `node` process's RSS, a plain GET
 * roundtrip and the bench's own watch delivery against the same apiserver).
 *
 * The agent runs as its own process (by default the esbuild bundle of the executable's sources
 * plus the recording systemd of hack/node-agent-doubles, built into a temp dir and started by
 * `node`; `--agent executable` builds that bundle into a single executable, as a node runs the
 * agent; `--agent tsx` runs hack/node-agent-doubles/main.ts under the tsx loader instead) with the
 * rendered OSC of the example's first
 * worker pool plus one probe unit whose content each update changes, `--systemd=record:FILE` and
 * image files from a directory. It authenticates as the rendering's identity mode says:
 * `--identity node` (the default) with its own client certificate, which it asks for at start and
 * the seed's approver approves (the API server asks the seed's node agent authorizer about each of
 * its requests: node-agent/node-identity-seed.ts); `--identity serviceAccount` with the v1.91
 * ServiceAccount token the rendered RBAC binds. Requests are counted from the apiserver's audit log
 * by the agent's usernames. With `--identity node` the same pool as gardenlet v1.150.0 renders it is
 * measured too, in the same run and small cluster, by a second agent process beside the first
 * (first apply, idle RSS, updates to the last systemd call; node-agent/v150-pool.ts), and reported
 * against the v1.91.4 pool's figures.
 *
 *   npx tsx hack/bench/node-agent.ts [--identity node|serviceAccount] [--window 10m] [--updates 100]
 *     [--settle 30s] [--agent bundle|executable|tsx] [--nodes 5000] [--secrets 5000]
 *     [--node-flags="--max-semi-space-size=1"] [--quick]
 *
 * About 25 minutes at the defaults; `--quick` (3 updates per phase, 10 Nodes and Secrets, a 5 s
 * window) about a minute, a smoke run whose figures mean nothing.
 *
 * The steps, in order (main below): prepare the agent's program, calibrate, start the API server,
 * deploy what the seed deploys for one node, watch as a bystander, start the agent until its first
 * apply, measure it idle, apply updates in a small cluster, measure the v1.150.0 pool's agent the
 * same way and stop it, grow the cluster, apply updates again,
 * measure a steady-state window, stop the agent as systemd does, report. The report goes to stdout,
 * progress to stderr. Everything it starts or creates is removed on exit, also on SIGINT/SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_AGENT_IDENTITY } from '../../api/index.js';
import { bundleNodeAgentWithDoubles, NODE_AGENT_WITH_DOUBLES } from '../build-node-agent.js';
import { buildExecutable } from '../single-executable.js';
import { clientNodeRoundtrips, getRoundtrips } from './node-agent/admin-api.js';
import {
  bundleComposition,
  bundleProbe,
  CLIENT_NODE_PROBE,
  OTHER_DEPS_PROBE,
} from './node-agent/calibrations.js';
import {
  type Cluster,
  deployWhatTheSeedDeploys,
  type NodeUnderTest,
  SECRETS_PATH,
  startApiServer,
  watchAsABystander,
} from './node-agent/landscape.js';
import {
  type AgentProgram,
  agentProcess,
  applyUpdates,
  measureIdleMemory,
  measureSettledRss,
  measureSteadyState,
  Phases,
  populateCluster,
  startUntilFirstApply,
} from './node-agent/measure.js';
import { nodeIdentitySeed } from './node-agent/node-identity-seed.js';
import { OPTIONS } from './node-agent/options.js';
import { report } from './node-agent/report.js';
import { reportV150 } from './node-agent/report-v150.js';
import { measureV150Pool } from './node-agent/v150-pool.js';
import { AuditLog } from './support/audit.js';
import { QUICK_NOTICE } from './support/command-line.js';
import { idleProcessRss, procStatus } from './support/process.js';
import { ROOT } from './support/revision.js';
import { Cleanups, now, print, progress, thousands } from './support/run.js';

const cleanups = new Cleanups();
const IDLE_NODE = ['-e', 'setInterval(() => {}, 1 << 30)'];

/**
 * Step: the agent's program, bundled as the executable is but with the recording systemd, started
 * by `node` (`--agent bundle`) or as a single executable of its own (`executable`: what a node
 * runs, which compiles the bundle before anything else allocates); or the sources under tsx.
 */
async function prepareAgentProgram(dir: string): Promise<AgentProgram> {
  if (OPTIONS.agentMode === 'tsx')
    return {
      command: process.execPath,
      args: [...OPTIONS.nodeFlags, '--import', 'tsx', join(ROOT, 'hack/node-agent-doubles/main.ts')],
    };
  const t = now();
  if (OPTIONS.agentMode === 'executable') {
    const { binary } = await buildExecutable(NODE_AGENT_WITH_DOUBLES, { outDir: dir });
    progress(`built the agent's single executable in ${((now() - t) / 1000).toFixed(1)} s`);
    return { command: binary, args: [] };
  }
  const bundle = join(dir, 'gardener-node-agent.cjs');
  await bundleNodeAgentWithDoubles(bundle);
  progress(`bundled the agent in ${((now() - t) / 1000).toFixed(1)} s`);
  return { command: process.execPath, args: [...OPTIONS.nodeFlags, bundle] };
}

/** Step: what processes that do nothing hold, and what the agent's dependencies cost alone. */
async function calibrateIdleProcesses(dir: string) {
  progress('calibration: idle node processes');
  return {
    composition: await bundleComposition(),
    bareNode: await idleProcessRss(IDLE_NODE, ROOT, 3000),
    clientNode: await idleProcessRss(
      [
        '--input-type=module',
        '-e',
        "await import('@kubernetes/client-node'); setInterval(() => {}, 1 << 30);",
      ],
      ROOT,
      3000,
    ),
    clientNodeBundled: await idleProcessRss(
      [await bundleProbe(join(dir, 'client-node-probe.cjs'), CLIENT_NODE_PROBE)],
      ROOT,
      3000,
    ),
    otherDepsBundled: await idleProcessRss(
      [await bundleProbe(join(dir, 'other-deps-probe.cjs'), OTHER_DEPS_PROBE)],
      ROOT,
      3000,
    ),
    tsxNodeRss:
      OPTIONS.agentMode === 'tsx'
        ? (await idleProcessRss(['--import', 'tsx', ...IDLE_NODE], ROOT, 3000)).rssKiB
        : undefined,
  };
}

/** Step: a plain GET of the OSC secret, ours and client-node's. */
async function calibrateGets(cluster: Cluster, node: NodeUnderTest) {
  progress('calibration: GET roundtrips');
  return {
    getSmall: await getRoundtrips(cluster.api, `${SECRETS_PATH}/${node.secretName}`, 200),
    clientNodeGets: await clientNodeRoundtrips(cluster.env, node.secretName, 50),
  };
}

function printHeader(): void {
  print(`# node agent benchmark (hack/bench/node-agent.ts), ${new Date().toISOString()}`);
  if (OPTIONS.quick) print(QUICK_NOTICE);
  print();
  print(
    `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average at start ` +
      `${loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')}; other jobs share this machine, so absolute times are noisy: ` +
      'read them against the calibrations of the same run',
  );
  print(
    `options: identity ${OPTIONS.identity}, window ${OPTIONS.window}, updates ${OPTIONS.updates} per phase, settle ${OPTIONS.settle}, agent apply settle ${OPTIONS.applySettle}, ` +
      `${thousands(OPTIONS.nodes)} Nodes + ${thousands(OPTIONS.secrets)} Secrets (concurrency ${OPTIONS.concurrency}), agent: ${OPTIONS.agentMode}` +
      (OPTIONS.nodeFlags.length > 0 ? `, agent node flags: ${OPTIONS.nodeFlags.join(' ')}` : ''),
  );
}

async function main(): Promise<void> {
  // always our own apiserver: request counts need its audit log
  delete process.env.TEST_KUBECONFIG;
  delete process.env.TEST_SHOOT_KUBECONFIG;
  const runId = Date.now().toString(36);
  printHeader();
  const dir = mkdtempSync(join(tmpdir(), 'bench-node-agent-'));
  cleanups.push('temp dir', () => rmSync(dir, { recursive: true, force: true }));

  const agentProgram = await prepareAgentProgram(dir);
  const idleProcesses = await calibrateIdleProcesses(dir);
  const identitySeed =
    OPTIONS.identity === NODE_AGENT_IDENTITY.node ? await nodeIdentitySeed(cleanups) : undefined;
  const cluster = await startApiServer(cleanups, identitySeed);
  const node = await deployWhatTheSeedDeploys(cluster, dir, runId, cleanups);
  const seen = await watchAsABystander(cluster, node, cleanups);
  const gets = await calibrateGets(cluster, node);

  const phases = new Phases();
  const agent = agentProcess(agentProgram, node, dir, cleanups);
  const first = await startUntilFirstApply(agent, node, seen, phases);
  const idle = await measureIdleMemory(agent, phases);
  const running = { agent, node, cluster, seen, phases };
  const smallUpdates = await applyUpdates('small cluster', running);
  const rssAfterSmallUpdates = procStatus(agent.pid).rssKiB;
  // the same pool as v1.150.0 renders it, in the same small cluster (v1.150.0 has per-node identities only)
  const v150 =
    OPTIONS.identity === NODE_AGENT_IDENTITY.node
      ? await measureV150Pool(agentProgram, cluster, dir, runId, cleanups)
      : undefined;

  const populated = await populateCluster(cluster, runId, phases, cleanups);
  const rssAfterPopulate = procStatus(agent.pid).rssKiB;
  const bigSamples = await measureSettledRss(agent, phases, 'settling (large cluster)');
  const getBig = await getRoundtrips(cluster.api, `${SECRETS_PATH}/${node.secretName}`, 200);
  const bigUpdates = await applyUpdates(
    `${thousands(OPTIONS.nodes)} Nodes + ${thousands(OPTIONS.secrets)} Secrets`,
    running,
  );
  progress(`settling ${OPTIONS.settle} before the window`);
  await new Promise((r) => setTimeout(r, OPTIONS.settleMs));
  const window = await measureSteadyState(agent, phases);

  progress('stopping the agent (SIGTERM)');
  const exitCode = await agent.stop();
  report({
    ...idleProcesses,
    ...gets,
    getBig,
    fsyncTimes: node.fsyncTimes,
    firstApplyMs: first.firstApplyMs,
    startsForFirstApply: first.starts,
    idle,
    smallUpdates,
    rssAfterSmallUpdates,
    populated,
    rssAfterPopulate,
    bigSamples,
    bigUpdates,
    window,
    exitCode,
    agentStarts: agent.starts,
    username: node.username,
    requests: new AuditLog(cluster.env.auditLogPath).requests((u) => node.usernames.includes(u)),
    phases: phases.list,
  });
  reportV150({ secretName: node.secretName, firstApplyMs: first.firstApplyMs, idle, smallUpdates }, v150);
}

let code = 0;
try {
  await main();
} catch (e) {
  code = 1;
  process.stderr.write(`node-agent bench failed: ${(e as Error).stack ?? e}\n`);
}
progress('cleaning up');
await cleanups.run();
progress('done');
process.exit(code);
