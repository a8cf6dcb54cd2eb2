/**
 * The controller-manager at scale: one process against one seed kube-apiserver with 1, 10 and 50
 * selected Clusters, each with 3 worker pools and 100 Nodes per pool. For each scale it measures
 *
 * 1. RSS and CPU after the first full reconcile, and the time from the process's start until every
 *    Cluster is reconciled (its ManagedResource written, which needs every OSC ready) and every
 *    Node carries its reconciliation delay;
 * 2. API requests per shoot-hour while nothing changes (writes expected: 0), from the audit logs;
 * 3. what one reconcile of every shoot costs (each Cluster touched once, as the hourly sync does);
 * 4. the time to resync after a restart (ready, then every Cluster reconciled again);
 * 5. watches per shoot.
 *
 * How shoots share an API server: every Cluster is a copy of examples/cluster.yaml in its own seed
 * namespace, and all of them point (through their own `gardener-internal` secret and shoot
 * ServiceAccount) to one shoot kube-apiserver holding 300 Nodes in the example's three pools. So
 * each shoot's controllers see exactly what one real 300-node shoot shows them, while the machine
 * runs two API servers instead of 51. Each shoot still has its own credentials, caches and watches,
 * so per-shoot figures are real; what is shared is only the server's work. No
 * gardener-resource-manager runs, so the shoot holds no OSC secrets: node status reports them
 * missing (one event per shoot), which costs the same reads. os-local is the OS extension.
 *
 * `--baseline REV` also runs the controller-manager of a git revision (exported and bundled, see
 * support/revision.ts) in the same run, scale by scale alternating with the working tree's, so the
 * two are measured on the same machine under the same load. Both run as compiled JavaScript.
 *
 *   npx tsx hack/bench/controller-manager.ts [--shoots 1,10,50] [--nodes-per-pool 100]
 *     [--idle 5m] [--baseline REV] [--quick]
 *
 * About 40 minutes at the defaults (twice that with `--baseline`); `--quick` (1 shoot, 2 Nodes per
 * pool, a 10 s idle window) about 2 minutes.
 *
 * The steps for each scale and program, in order (runScenario below): start the landscape (a seed
 * and a shoot API server with audit logs, the RBAC the chart renders), create the shoots, first
 * start, idle, touch every Cluster, restart; then the report. The pieces are in
 * controller-manager/: options, landscape, manager-process (the process, its configuration and
 * metrics), requests (the audit log read per user) and report. The report goes to stdout, progress
 * to stderr; everything it starts is removed on exit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { createShoots, type Landscape, startLandscape } from './controller-manager/landscape.js';
import { ManagerProcess, managerConfig, untilReconciled } from './controller-manager/manager-process.js';
import {
  BASELINE,
  IDLE,
  IDLE_MS,
  NODES_PER_POOL,
  QUICK,
  RECONCILE_TIMEOUT_MS,
  SCALES,
} from './controller-manager/options.js';
import { type Result, report } from './controller-manager/report.js';
import { describeRequests, managerRequests, watchStreams } from './controller-manager/requests.js';
import { QUICK_NOTICE } from './support/command-line.js';
import { cpuSeconds, idleProcessRss, procStatus } from './support/process.js';
import { type Program, programAt, ROOT } from './support/revision.js';
import { Cleanups, mib, now, print, progress, until } from './support/run.js';

type Scenario = {
  cleanups: Cleanups;
  program: Program;
  shoots: number;
  run: string;
  landscape: Landscape;
  namespaces: string[];
  config: string;
  logFile: string;
};

/** Step: the first start, until every Cluster is reconciled and every Node carries its delay. */
async function firstStart(sc: Scenario) {
  progress(`${sc.run}: starting the controller-manager of ${sc.program.label} for ${sc.shoots} shoots`);
  const manager = new ManagerProcess(sc.program, sc.config, sc.logFile);
  const stop = sc.cleanups.push(`controller-manager of ${sc.run}`, () => manager.stop());
  const reconciled = await untilReconciled(sc.landscape, manager, sc.namespaces);
  const cpuToReconcile = cpuSeconds(manager.pid);
  await sleep(10_000);
  const rssKiB = procStatus(manager.pid).rssKiB;
  const heapKiB = (await manager.metric('nodejs_heap_size_used_bytes')) / 1024;
  progress(
    `${sc.run}: reconciled after ${(reconciled.shootsMs / 1000).toFixed(1)} s, Nodes annotated after ` +
      `${(reconciled.allMs / 1000).toFixed(1)} s; RSS ${mib(rssKiB)} MiB, heap in use ${mib(heapKiB)} MiB`,
  );
  return { manager, stop, reconciled, cpuToReconcile, rssKiB, heapKiB };
}

/** Step: nothing changes for the idle window; what the process reads and writes meanwhile. */
async function idle(sc: Scenario, manager: ManagerProcess) {
  progress(`${sc.run}: idle for ${IDLE}`);
  const from = Date.now();
  const cpu0 = cpuSeconds(manager.pid);
  await sleep(IDLE_MS);
  const to = Date.now();
  const cpuPerMinute = ((cpuSeconds(manager.pid) - cpu0) / IDLE_MS) * 60_000;
  const rssKiB = procStatus(manager.pid).rssKiB;
  const heapKiB = (await manager.metric('nodejs_heap_size_used_bytes')) / 1024;
  await sleep(2000); // the audit log is written asynchronously
  const requests = managerRequests(sc.landscape, sc.shoots, from, to);
  const hours = IDLE_MS / 3_600_000;
  return {
    rssKiB,
    heapKiB,
    cpuPerMinute,
    summary: {
      perShootHour: requests.all.length / hours / sc.shoots,
      writes: requests.writes.length,
      breakdown: describeRequests(requests.all),
      leaderElectionPerHour: requests.leaderElection.length / hours,
    },
  };
}

/** Step: one reconcile of every shoot, each Cluster touched as the hourly sync would reconcile it. */
async function touchEveryCluster(sc: Scenario, manager: ManagerProcess) {
  progress(`${sc.run}: touching every Cluster once`);
  const before = await manager.reconciles('operatingsystemconfig');
  const from = Date.now();
  for (const namespace of sc.namespaces)
    await sc.landscape.seedAdmin.mergePatch(
      RESOURCE.cluster,
      { name: namespace },
      { metadata: { annotations: { 'bench.node-configuration.gardener.cloud/touched': String(from) } } },
    );
  await until('every shoot reconciled once more', RECONCILE_TIMEOUT_MS, async () =>
    (await manager.reconciles('operatingsystemconfig')) >= before + sc.shoots ? true : undefined,
  );
  await sleep(5000);
  const round = managerRequests(sc.landscape, sc.shoots, from, Date.now());
  return {
    perShoot: round.all.length / sc.shoots,
    writesPerShoot: round.writes.length / sc.shoots,
    breakdown: describeRequests(round.all, 10),
    writeBreakdown: describeRequests(round.writes, 10),
  };
}

/** Step: stop the process as Kubernetes does and start it again, until every shoot is reconciled. */
async function restart(sc: Scenario, first: ManagerProcess, stopFirst: () => Promise<void>) {
  progress(`${sc.run}: restarting the controller-manager`);
  const exitCode = await first.stop();
  await stopFirst();
  const from = Date.now();
  const manager = new ManagerProcess(sc.program, sc.config, sc.logFile);
  const stop = sc.cleanups.push(`restarted controller-manager of ${sc.run}`, () => manager.stop());
  const readyMs = await manager.ready();
  await until('every shoot reconciled after the restart', RECONCILE_TIMEOUT_MS, async () =>
    (await manager.reconciles('operatingsystemconfig')) >= sc.shoots ? true : undefined,
  );
  const resyncMs = now() - manager.startedAt;
  await sleep(5000);
  const requests = managerRequests(sc.landscape, sc.shoots, from, Date.now());
  await manager.stop();
  await stop();
  return {
    readyMs,
    resyncMs,
    writes: requests.writes.length,
    writeBreakdown: describeRequests(requests.writes, 10),
    writeSamples: requests.writes.slice(0, 5).map((w) => `${w.verb} ${w.uri} (${w.code})`),
    exitCode,
  };
}

/**
 * One scale for one program: a fresh landscape with `shoots` Clusters, then the steps above in
 * order; the watches are counted over the whole run.
 */
async function runScenario(
  cleanups: Cleanups,
  program: Program,
  shoots: number,
  dir: string,
  run: string,
): Promise<Result> {
  const landscape = await startLandscape(run, dir, cleanups);
  try {
    const namespaces = await createShoots(landscape, shoots);
    const sc: Scenario = {
      cleanups,
      program,
      shoots,
      run,
      landscape,
      namespaces,
      config: managerConfig(dir, run, landscape),
      logFile: join(dir, `${run}-controller-manager.log`),
    };
    const first = await firstStart(sc);
    const quiet = await idle(sc, first.manager);
    const round = await touchEveryCluster(sc, first.manager);
    const restarted = await restart(sc, first.manager, first.stop);
    const all = managerRequests(landscape, shoots, 0, Date.now());
    return {
      program: program.label,
      shoots,
      reconciledMs: first.reconciled.shootsMs,
      nodesAnnotatedMs: first.reconciled.allMs,
      cpuToReconcile: first.cpuToReconcile,
      rssKiB: first.rssKiB,
      heapKiB: first.heapKiB,
      idleRssKiB: quiet.rssKiB,
      idleHeapKiB: quiet.heapKiB,
      idle: quiet.summary,
      round,
      restart: restarted,
      watches: watchStreams(all.watches, shoots),
      idleCpuPerMinute: quiet.cpuPerMinute,
    };
  } finally {
    await landscape.stop();
  }
}

async function main(cleanups: Cleanups): Promise<void> {
  delete process.env.TEST_KUBECONFIG;
  delete process.env.TEST_SHOOT_KUBECONFIG;
  const load0 = loadavg();
  print(`# controller-manager benchmark (hack/bench/controller-manager.ts), ${new Date().toISOString()}`);
  if (QUICK) print(QUICK_NOTICE);
  print();
  print(
    `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average at start ` +
      `${load0.map((l) => l.toFixed(2)).join(' / ')}; other jobs share this machine`,
  );
  print(
    `options: shoots ${SCALES.join(', ')}; ${NODES_PER_POOL} Nodes per pool; idle window ${IDLE}` +
      (BASELINE ? `; baseline ${BASELINE}` : ''),
  );
  const dir = mkdtempSync(join(tmpdir(), 'bench-controller-manager-'));
  cleanups.push('temp dir', () => rmSync(dir, { recursive: true, force: true }));

  const programs: Program[] = [];
  if (BASELINE) programs.push(await programAt(BASELINE, 'cli/main.ts'));
  programs.push(await programAt(undefined, 'cli/main.ts'));
  for (const p of programs) cleanups.push(`program ${p.label}`, () => p.remove());
  print(`programs: ${programs.map((p) => p.label).join(', ')} (esbuild bundles, run by node)`);

  progress('calibration: an idle node process');
  const bare = await idleProcessRss(['-e', 'setInterval(() => {}, 1 << 30)'], ROOT, 3000);
  print(`calibration: a bare node process holds ${mib(bare.rssKiB)} MiB RSS`);

  const results: Result[] = [];
  let run = 0;
  for (const shoots of SCALES) {
    for (const program of programs) {
      const result = await runScenario(cleanups, program, shoots, dir, `r${run++}`);
      results.push(result);
      progress(`${program.label}, ${shoots} shoots: ${JSON.stringify(result)}`);
    }
  }
  print(
    `load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')}`,
  );
  report(results, bare.rssKiB);
}

const cleanups = new Cleanups();
main(cleanups)
  .catch((e) => {
    process.stderr.write(`benchmark failed: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanups.run());
