/**
 * The demo's scenario end to end (hack/demo/scenario.ts, what `npm run demo` shows) with 5 nodes,
 * step by step as the demo runs it: a seed and a shoot kube-apiserver, the controller-manager as a
 * child process in direct mode with os-local, one real gardener-node-agent process per node. One
 * shoot goes 1/4 from the legacy downloader 2/4 to the agent (every node's initial apply), 3/4
 * through a kubelet change let out in waves behind the health gate (and, as `--break-rollout`
 * shows, a bad one halted at the canaries, then its fix) and 4/4 each node's own identity
 * (obtained in the migration) is tried against the rest of the shoot; then what it measured is
 * summarised. Alongside, `npm run demo` itself is interrupted
 * with SIGINT while its agents run: nothing may be left behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { PATH } from '../../api/index.js';
import { checks, rolloutSvg, summaryTable } from '../../hack/demo/report.js';
import {
  breakKubeletChange,
  type CompromisedNodeOutcome,
  type MigrationOutcome,
  migrateToAgent,
  probeCompromisedNodes,
  type RolloutOutcome,
  rollOutKubeletChange,
  runLegacyNodes,
  type ScenarioResult,
  type ScenarioRun,
  setUp,
  summarize,
  tearDown,
} from '../../hack/demo/scenario.js';
import { eventually, eventuallyPasses } from '../../hack/landscape/eventually.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** The pids whose command line mentions `text` (other than this process). */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (Number(pid) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(text)) found.push(`${pid}: ${cmdline.slice(0, 160)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** The live (not zombie) processes of a process group. */
function liveInGroup(pgid: number): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after the last ')'
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z')
        found.push(`${pid} ${stat.slice(0, stat.lastIndexOf(')') + 1)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

interface InterruptedRun {
  readonly output: string;
  /** Processes of its group still running once it said it stopped. */
  readonly leftInGroup: string[];
  readonly workDir: string;
  readonly envtestDirs: string[];
}

/**
 * `npm run demo -- --nodes 2` in its own process group, and SIGINT to the whole group once an agent
 * runs, as Ctrl-C in a terminal does (npm, sh and the demo's node all get it); resolves after the
 * group is gone. The demo runs as `node --import tsx`, not under the tsx CLI: tsx relays a signal
 * and SIGKILLs a child that has not acknowledged it within 60 ms, so a busy demo died uncleaned.
 */
function interruptDemo(outDir: string): { child: ChildProcess; done: Promise<InterruptedRun> } {
  const child = spawn('npm', ['run', '--silent', 'demo', '--', '--nodes', '2', '--out', outDir], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => {
    output += d;
  });
  child.stderr?.on('data', (d) => {
    output += d;
  });
  const done = (async () => {
    // an agent runs once node-init started it
    await eventually(
      'an agent of the interrupted demo to run',
      () => /node-init: copied the agent/.test(output),
      240_000,
      200,
    );
    const pgid = child.pid ?? 0;
    process.kill(-pgid, 'SIGINT');
    // npm itself dies of the SIGINT at once; the demo cleans up and then says so
    await eventually(
      'the interrupted demo to finish',
      () => /^(stopped: |demo failed)/m.test(output),
      90_000,
      200,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; its output ends:\n${output.slice(-3000)}`);
    });
    await eventually(
      'the process group of the interrupted demo to end',
      () => liveInGroup(pgid).length === 0,
      15_000,
    ).catch(() => undefined);
    return {
      output,
      leftInGroup: liveInGroup(pgid),
      workDir: /work dir (\S+) ==/.exec(output)?.[1] ?? '',
      envtestDirs: [...output.matchAll(/\(data in (\S+)\)/g)].map((m) => m[1] ?? ''),
    };
  })();
  return { child, done };
}

describe('e2e: the demo scenario with 5 nodes', function () {
  this.timeout(5 * 60_000);
  let run: ScenarioRun;
  let migration: MigrationOutcome;
  let rollout: RolloutOutcome;
  let limits: CompromisedNodeOutcome;
  let result: ScenarioResult;
  let interrupted: Promise<InterruptedRun>;
  let interruptedChild: ChildProcess | undefined;
  const outDir = mkdtempSync(join(tmpdir(), 'gardener-osc-e2e-out-'));

  before(async function () {
    // the first run on a machine builds kube-apiserver and etcd (hack/envtest)
    this.timeout(20 * 60_000);
    // the interrupted demo runs alongside: its agents are up long before this scenario ends
    const demo = interruptDemo(outDir);
    interruptedChild = demo.child;
    interrupted = demo.done;
    interrupted.catch(() => undefined);
    run = await setUp({
      nodes: 5,
      maxDelaySeconds: 20,
      onTimeline: process.env.TEST_LOG ? (e) => process.stderr.write(`${JSON.stringify(e)}\n`) : undefined,
    });
  });

  after(async () => {
    if (run) await tearDown(run);
    try {
      if (interruptedChild?.pid) process.kill(-interruptedChild.pid, 'SIGKILL');
    } catch {
      // the group is gone, as it should be
    }
    rmSync(outDir, { recursive: true, force: true });
  });

  it("1/4 legacy: with the gate off every node is registered and carries the downloader's state", async () => {
    await runLegacyNodes(run);
    for (const node of run.nodes) expect(node.hasLegacyState(), node.name).to.equal(true);
  });

  it("2/4 migration: every node's first agent apply, the downloader's state gone from its root", async () => {
    migration = await migrateToAgent(run);
    expect(migration.nodes.size).to.equal(5);
    for (const [name, node] of migration.nodes) {
      expect(node.legacyStateRemoved, name).to.equal(true);
      // the first apply writes every unit, the agent's own among them: it restarts itself once
      expect(node.agentRestartedItself, name).to.equal(true);
      expect(node.unitsRestarted, name).to.include('kubelet.service');
    }
    // each agent obtained its own identity with the downloader's token, and holds no shared token
    for (const node of run.nodes) {
      expect(node.identity(), node.name).to.equal(`gardener.cloud:node-agent:machine:${node.name}`);
      expect(node.readRootFile(PATH.nodeAgentToken), node.name).to.equal(undefined);
    }
  });

  it('3/4 rollout: the plan of the kubelet change, one line per pool, before rolling it out', async () => {
    rollout = await rollOutKubeletChange(run);
    const plan = run.timeline.filter((e) => e.phase === 'rollout' && e.text.startsWith('plan: '));
    expect(plan.map((e) => e.text)).to.deep.equal([
      'plan: cpu-worker: kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (maxPods 110 → 120)',
      'plan: gpu-worker: kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (maxPods 64 → 74)',
      'plan: arm-worker: kubelet.service: Restart ← /var/lib/kubelet/config/kubelet (maxPods 110 → 120)',
    ]);
  });

  it('3/4 rollout: only the changed unit restarts', () => {
    for (const [name, node] of rollout.nodes)
      expect(
        node.changes[0]!.restarts.map((r) => r.unit),
        name,
      ).to.deep.equal(['kubelet.service']);
  });

  it('3/4 rollout: in waves, a canary per pool in one zone, each wave only after the one before passed the gate', () => {
    const change = rollout.changes[0]!;
    const canaries = change.waves.filter((w) => w.kind === 'canary');
    expect(canaries.map((w) => w.pool).sort()).to.deep.equal(['arm-worker', 'cpu-worker', 'gpu-worker']);
    for (const w of canaries) expect(w.nodes, w.pool).to.have.length(1);
    for (const wave of change.waves) {
      const before = change.waves.find((w) => w.pool === wave.pool && w.wave === wave.wave - 1);
      if (!before) continue;
      const passed = Math.max(...before.nodes.map((n) => change.nodes.get(n)!.reportedAt!));
      for (const n of wave.nodes)
        expect(change.nodes.get(n)!.permittedAt, `${n} (wave ${wave.wave} of ${wave.pool})`).to.be.at.least(
          passed + rollout.settleMs - 500,
        );
    }
    for (const [name, node] of change.nodes) expect(node.result, name).to.equal('Succeeded');
    expect(rollout.kubeletRestartsPerSecond.reduce((a, b) => a + b, 0)).to.equal(5);
  });

  it('3/4 --break-rollout: a bad kubelet change stops at the canaries; the previous spec reaches the failed nodes first', async () => {
    const broken = await breakKubeletChange(run);
    const [bad, fix] = broken.changes as [
      NonNullable<(typeof broken.changes)[0]>,
      NonNullable<(typeof broken.changes)[0]>,
    ];
    expect(broken.bad!.applied, 'at most one canary per pool').to.be.within(1, 3);
    expect([...bad.pools.values()].map((p) => p.phase)).to.deep.equal(['Halted', 'Halted', 'Halted']);
    const line = run.timeline.find((e) => e.text.startsWith('bad configuration applied on '));
    expect(line?.text).to.equal(
      `bad configuration applied on ${broken.bad!.applied} of 5 nodes; rollout halted`,
    );
    const failed = [...bad.nodes.values()].filter((n) => n.result === 'Failed');
    expect(failed).to.have.length(broken.bad!.applied);
    for (const f of failed) {
      expect(f.reason).to.equal('UnitNotActive');
      const first = fix.waves.find((w) => w.pool === f.pool)!;
      expect(first.kind, f.pool).to.equal('first');
      expect(first.nodes).to.include(f.node);
    }
    expect([...fix.pools.values()].every((p) => p.phase === 'Completed')).to.equal(true);
    // the others still ran the previous spec: the fix changed nothing there, nor did they report
    for (const n of fix.nodes.values())
      if (!failed.some((f) => f.node === n.node)) expect(n.result, n.node).to.equal(undefined);
  });

  it("4/4 a compromised node: each node's identity gets its own objects and nothing that harms others", async () => {
    limits = await probeCompromisedNodes(run);
    expect(limits.nodes.size).to.equal(5);
    for (const [name, node] of limits.nodes) {
      expect(node.identity, name).to.equal(`gardener.cloud:node-agent:machine:${name}`);
      expect(node.unexpected, name).to.deep.equal([]);
      expect(node.probes, name).to.equal(limits.probes.length);
    }
    expect(limits.probes).to.include.members([
      'get OSC secret of its pool P: allowed',
      'get OSC secret of pool Q: denied (authorization)',
      'taint Node B NoExecute: denied (authorization)',
      'label Node A worker.gardener.cloud/pool (not owned): denied (admission)',
      "set Node A's rollout permission permitted-checksum (the seed's): denied (admission)",
      'create Lease kube-system/kube-controller-manager-x: denied (admission)',
    ]);
  });

  it("summary: every node converged to its pool's checksum", async () => {
    result = await summarize(run, migration, rollout, limits);
    await tearDown(run);
    expect(result.nodes).to.have.length(5);
    expect(result.pools.map((p) => p.name).sort()).to.deep.equal(['arm-worker', 'cpu-worker', 'gpu-worker']);
    for (const node of result.nodes) expect(node.rollout.checksumOk, node.name).to.equal(true);
  });

  it('summary: the legacy resources went once every node reported, exactly once', () => {
    expect(result.migration.statesSeen).to.include.members(['Migrating', 'Completed']);
    expect(result.migration.statesSeen.at(-1)).to.equal('Completed');
    expect(result.migration.legacyLeft).to.deep.equal([]);
    // counted at the very end, long after the cleanup: never repeated
    expect(result.migration.legacyAccessSecretDeletes).to.equal(1);
    expect(result.migration.cleanupsMetric).to.equal(1);
    const lastReport = Math.max(...result.nodes.map((n) => n.migration.reportedAt));
    expect(result.migration.completedAt).to.be.at.least(lastReport);
  });

  it('summary: every check holds, a table row and a chart row per node, nothing left behind', () => {
    const failed = checks(result).filter((c) => !c.ok);
    expect(failed, JSON.stringify(failed)).to.deep.equal([]);
    const table = summaryTable(result);
    for (const node of result.nodes) expect(table).to.match(new RegExp(`^${node.name} `, 'm'));
    const svg = rolloutSvg(result);
    expect(svg).to.match(/^<svg /);
    expect(svg.match(/<circle /g)).to.have.length(5);
    expect(existsSync(result.workDir), 'the work dir is removed').to.equal(false);
  });

  it('leaves no process and no temp dir behind when Ctrl-C (SIGINT to the group) stops `npm run demo` while its agents run', async () => {
    const run = await interrupted;
    expect(run.output).to.contain('SIGINT: stopping the demo');
    expect(run.output).to.contain('stopped: every process, API server and temp dir is gone');
    expect(run.workDir, run.output).to.match(/gardener-osc-demo-run-/);
    expect(run.envtestDirs, run.output).to.have.length(2);
    expect(run.leftInGroup, 'npm, the demo and the supervisors are gone').to.deep.equal([]);
    for (const dir of [run.workDir, ...run.envtestDirs]) {
      expect(existsSync(dir), `${dir} removed`).to.equal(false);
      await eventuallyPasses(
        () => expect(processesMentioning(dir), `processes of ${dir}`).to.deep.equal([]),
        5_000,
      );
    }
    expect(existsSync(join(outDir, 'demo-rollout.svg')), 'an interrupted demo writes no chart').to.equal(
      false,
    );
  });
});
