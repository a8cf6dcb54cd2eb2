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
 *     [--idle 5m] [--baseline REV]
 *
 * The report goes to stdout, progress to stderr; everything it starts is removed on exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { parseGoDuration, parseYaml, stringifyYaml } from '../../api/index.js';
import {
  CONTROLLER_MANAGER_NAME,
  clusterRoleBinding,
  seedClusterRole,
  shootClusterRole,
} from '../../charts/controller-manager/controller-manager.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type Envtest, startEnvtest } from '../../test/integration/envtest.js';
import { type ApiRequest, AuditLog, WRITE_VERBS, watchStream } from './support/audit.js';
import { cpuSeconds, idleProcessRss, procStatus, terminate } from './support/process.js';
import { commitOf, type Program, programAt, ROOT } from './support/revision.js';
import { Cleanups, mib, now, print, progress, until } from './support/run.js';

// ---------------------------------------------------------------------------------------------
// options

const { values: flags } = parseArgs({
  options: {
    shoots: { type: 'string', default: '1,10,50' },
    'nodes-per-pool': { type: 'string', default: '100' },
    idle: { type: 'string', default: '5m' },
    baseline: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  console.log(
    'usage: npx tsx hack/bench/controller-manager.ts [--shoots 1,10,50] [--nodes-per-pool 100] [--idle 5m] [--baseline REV]',
  );
  process.exit(0);
}
const SCALES = flags.shoots.split(',').map((s) => {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--shoots: "${s}" is not a positive number`);
  return n;
});
const NODES_PER_POOL = Number(flags['nodes-per-pool']);
if (!Number.isInteger(NODES_PER_POOL) || NODES_PER_POOL < 1)
  throw new Error('--nodes-per-pool must be a positive number');
const IDLE_MS = parseGoDuration(flags.idle) / 1e6;
if (IDLE_MS < 30_000) throw new Error('--idle must be at least 30s');
if (flags.baseline) commitOf(flags.baseline);

const SELECTOR = { 'bench.node-configuration.gardener.cloud/selected': 'true' };
const MANAGER_NAMESPACE = 'garden';
const SEED_USER = `system:serviceaccount:${MANAGER_NAMESPACE}:${CONTROLLER_MANAGER_NAME}`;
const shootUser = (i: number) => `system:serviceaccount:kube-system:bench-shoot-${i}`;
const shootNamespace = (i: number) => `shoot--bench--s${i}`;
const RECONCILE_TIMEOUT_MS = 15 * 60_000;
const cleanups = new Cleanups();

// ---------------------------------------------------------------------------------------------
// step: the landscape (a seed and a shoot API server)

interface Landscape {
  readonly seed: Envtest;
  readonly shoot: Envtest;
  readonly seedAdmin: KubeClient;
  readonly shootAdmin: KubeClient;
  readonly seedAudit: AuditLog;
  readonly shootAudit: AuditLog;
  readonly pools: readonly string[];
  readonly nodes: number;
  /** The controller-manager's seed kubeconfig (its ServiceAccount, bound to the chart's ClusterRole). */
  readonly managerKubeconfig: string;
  stop(): Promise<void>;
}

const exampleCluster = () =>
  parseYaml(readFileSync(join(ROOT, 'examples/cluster.yaml'), 'utf8')) as {
    metadata: Record<string, unknown>;
    spec: { shoot: { spec: { provider: { workers: { name: string; zones?: string[] }[] } } } };
  };

async function startLandscape(run: string, dir: string): Promise<Landscape> {
  progress(`${run}: starting a seed and a shoot kube-apiserver`);
  const [seed, shoot] = await Promise.all([
    startEnvtest({ name: `bench-cm-seed-${run}` }),
    startEnvtest({ name: `bench-cm-shoot-${run}` }),
  ]);
  const stop = cleanups.push(`API servers of ${run}`, () => Promise.all([seed.stop(), shoot.stop()]));
  const seedHttp = new KubeHttp(seed.kubeConfig);
  const shootHttp = new KubeHttp(shoot.kubeConfig);
  const seedAdmin = new KubeClient(seedHttp);
  const shootAdmin = new KubeClient(shootHttp);

  await seedAdmin.create(RESOURCE.namespace, { metadata: { name: MANAGER_NAMESPACE } });
  await seedAdmin.create(RESOURCE.clusterRole, seedClusterRole(CONTROLLER_MANAGER_NAME));
  await seedAdmin.create(
    RESOURCE.clusterRoleBinding,
    clusterRoleBinding(CONTROLLER_MANAGER_NAME, {
      name: CONTROLLER_MANAGER_NAME,
      namespace: MANAGER_NAMESPACE,
    }),
  );
  const identity = await seed.kubeConfigForServiceAccount(
    MANAGER_NAMESPACE,
    CONTROLLER_MANAGER_NAME,
    24 * 3600,
  );
  const managerKubeconfig = join(dir, `${run}-seed.kubeconfig`);
  writeFileSync(managerKubeconfig, identity.exportConfig());

  const pools = exampleCluster().spec.shoot.spec.provider.workers.map((w) => ({
    name: w.name,
    zones: w.zones?.length ? w.zones : ['zone-a'],
  }));
  const nodes = await createNodes(shootAdmin, pools);
  progress(`${run}: ${nodes} Nodes in ${pools.length} pools`);
  return {
    seed,
    shoot,
    seedAdmin,
    shootAdmin,
    seedAudit: new AuditLog(seed.auditLogPath),
    shootAudit: new AuditLog(shoot.auditLogPath),
    pools: pools.map((p) => p.name),
    nodes,
    managerKubeconfig,
    stop: async () => {
      await Promise.all([seedHttp.close(), shootHttp.close()]);
      await stop();
    },
  };
}

/** 100 Nodes per pool, spread over the pool's zones, labelled as the machine controller labels them. */
async function createNodes(admin: KubeClient, pools: readonly { name: string; zones: string[] }[]) {
  const version = '1.30.5';
  const bodies = pools.flatMap((pool) =>
    Array.from({ length: NODES_PER_POOL }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: `${pool.name}-${String(i).padStart(3, '0')}`,
        labels: {
          'worker.gardener.cloud/pool': pool.name,
          'worker.gardener.cloud/kubernetes-version': version,
          'worker.gardener.cloud/cri-name': 'containerd',
          'topology.kubernetes.io/zone': pool.zones[i % pool.zones.length]!,
          'kubernetes.io/hostname': `${pool.name}-${i}`,
        },
      },
    })),
  );
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) await admin.create(RESOURCE.node, bodies[next++]!);
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return bodies.length;
}

// ---------------------------------------------------------------------------------------------
// step: the shoots (seed namespace, secrets-manager secrets, gardener-internal, Cluster)

const PEM = (s: string) =>
  `-----BEGIN CERTIFICATE-----\n${Buffer.from(s).toString('base64')}\n-----END CERTIFICATE-----\n`;
const secretData = (data: Record<string, string>) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));

async function createShoots(landscape: Landscape, count: number): Promise<string[]> {
  const { seed, shoot, seedAdmin, shootAdmin } = landscape;
  const role = shootClusterRole('managedResource');
  await shootAdmin.create(RESOURCE.clusterRole, role);
  await shootAdmin.create(RESOURCE.clusterRoleBinding, {
    ...clusterRoleBinding(role.metadata.name, { name: 'bench-shoot-0', namespace: 'kube-system' }),
    subjects: Array.from({ length: count }, (_, i) => ({
      kind: 'ServiceAccount',
      name: `bench-shoot-${i}`,
      namespace: 'kube-system',
    })),
  });
  const namespaces: string[] = [];
  const sm = { 'managed-by': 'secrets-manager', 'manager-identity': 'gardenlet' };
  for (let i = 0; i < count; i++) {
    const namespace = shootNamespace(i);
    const secret = (name: string, labels: Record<string, string>, data: Record<string, string>) =>
      seedAdmin.create(RESOURCE.secret, {
        metadata: { name, namespace, labels },
        data: secretData(data),
      });
    await seedAdmin.create(RESOURCE.namespace, { metadata: { name: namespace } });
    const access = await shoot.kubeConfigForServiceAccount('kube-system', `bench-shoot-${i}`, 24 * 3600);
    await secret('gardener-internal', {}, { kubeconfig: access.exportConfig() });
    await secret('ca-bundle-1', { ...sm, 'bundle-for': 'ca' }, { 'bundle.crt': PEM('bench cluster CA') });
    await secret(
      'ca-kubelet-bundle-1',
      { ...sm, 'bundle-for': 'ca-kubelet' },
      { 'bundle.crt': PEM('bench kubelet CA') },
    );
    await secret(
      'ssh-keypair-1',
      { ...sm, name: 'ssh-keypair' },
      { id_rsa: 'private', 'id_rsa.pub': 'ssh-rsa AAAAbench bench' },
    );
    const cluster = exampleCluster();
    await seedAdmin.create(RESOURCE.cluster, {
      ...cluster,
      metadata: { name: namespace, labels: SELECTOR },
    });
    namespaces.push(namespace);
    if ((i + 1) % 10 === 0) progress(`  ${i + 1} of ${count} shoots created`);
  }
  void seed;
  return namespaces;
}

// ---------------------------------------------------------------------------------------------
// step: the controller-manager process

class ManagerProcess {
  readonly child: ChildProcess;
  readonly startedAt = now();
  metricsUrl: string | undefined;
  healthUrl: string | undefined;
  private log = '';

  constructor(program: Program, configFile: string, logFile: string) {
    this.child = spawn(
      process.execPath,
      [
        program.file,
        'controller-manager',
        '--config',
        configFile,
        '--health-port',
        '0',
        '--metrics-port',
        '0',
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.child.stderr!.on('data', (d: Buffer) => {
      writeFileSync(logFile, d, { flag: 'a' });
      if (this.metricsUrl) return;
      this.log += d.toString('utf8');
      const started = /"health":"(http:[^"]+)","metrics":"(http:[^"]+)"/.exec(this.log);
      if (started) {
        this.healthUrl = started[1];
        this.metricsUrl = started[2];
        this.log = '';
      }
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  async ready(): Promise<number> {
    await until('the controller-manager to be ready', RECONCILE_TIMEOUT_MS, async () => {
      if (this.child.exitCode !== null)
        throw new Error(`the controller-manager exited ${this.child.exitCode}`);
      if (!this.healthUrl) return undefined;
      const res = await fetch(`${this.healthUrl}/readyz`).catch(() => undefined);
      return res?.status === 200 ? true : undefined;
    });
    return now() - this.startedAt;
  }

  /** A metric without labels from the process's /metrics. */
  async metric(name: string): Promise<number> {
    if (!this.metricsUrl) return Number.NaN;
    const text = await (await fetch(`${this.metricsUrl}/metrics`)).text();
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  }

  /** `controller_runtime_reconcile_total` of one controller, summed over results. */
  async reconciles(controller: string): Promise<number> {
    if (!this.metricsUrl) return 0;
    const text = await (await fetch(`${this.metricsUrl}/metrics`)).text();
    let sum = 0;
    const pattern = new RegExp(
      `^controller_runtime_reconcile_total\\{[^}]*controller="${controller}"[^}]*\\} (\\S+)$`,
      'gm',
    );
    for (const m of text.matchAll(pattern)) sum += Number(m[1]);
    return sum;
  }

  stop(): Promise<number | null> {
    return terminate(this.child, 30_000);
  }
}

function managerConfig(dir: string, run: string, landscape: Landscape): string {
  const file = join(dir, `${run}-config.yaml`);
  writeFileSync(
    file,
    stringifyYaml({
      apiVersion: 'node-configuration.gardener.cloud/v1alpha1',
      kind: 'ControllerManagerConfiguration',
      seedKubeconfig: landscape.managerKubeconfig,
      clusterSelector: { matchLabels: SELECTOR },
      leaderElection: { namespace: MANAGER_NAMESPACE },
      controllers: { osLocal: { enabled: true, types: ['gardenlinux', 'ubuntu'] } },
      logFormat: 'json',
    }),
  );
  return file;
}

// ---------------------------------------------------------------------------------------------
// step: waiting for every Cluster to be reconciled

/** A freshly installed CRD's storage answers 429 or 503 for a moment: such a poll counts as "not yet". */
const unlessUnavailable = <T>(read: Promise<T>): Promise<T | undefined> =>
  read.catch((e: unknown) => {
    if ([429, 503].includes((e as { status?: number }).status ?? 0)) return undefined;
    throw e;
  });

async function reconciledShoots(admin: KubeClient, namespaces: ReadonlySet<string>): Promise<number> {
  const list = await admin.list<{ metadata: { name: string; namespace: string } }>(RESOURCE.managedResource);
  return list.filter(
    (mr) => mr.metadata.name === 'shoot-gardener-node-agent' && namespaces.has(mr.metadata.namespace),
  ).length;
}

async function nodesWithDelay(admin: KubeClient): Promise<number> {
  const list = await admin.list<{ metadata: { annotations?: Record<string, string> } }>(RESOURCE.node);
  return list.filter(
    (n) => n.metadata.annotations?.['node-agent.gardener.cloud/reconciliation-delay'] !== undefined,
  ).length;
}

/** Ms from the process start until every Cluster has its ManagedResource and every Node its delay. */
async function untilReconciled(landscape: Landscape, manager: ManagerProcess, namespaces: string[]) {
  const wanted = new Set(namespaces);
  let shootsAt: number | undefined;
  await until(
    'every Cluster reconciled and every Node annotated',
    RECONCILE_TIMEOUT_MS,
    async () => {
      if (manager.child.exitCode !== null)
        throw new Error(`the controller-manager exited ${manager.child.exitCode}`);
      if (
        shootsAt === undefined &&
        (await unlessUnavailable(reconciledShoots(landscape.seedAdmin, wanted))) === wanted.size
      )
        shootsAt = now();
      if (shootsAt === undefined) return undefined;
      return (await nodesWithDelay(landscape.shootAdmin)) === landscape.nodes ? true : undefined;
    },
    500,
  );
  return { shootsMs: shootsAt! - manager.startedAt, allMs: now() - manager.startedAt };
}

// ---------------------------------------------------------------------------------------------
// step: counting the controller-manager's requests

interface Requests {
  readonly all: ApiRequest[];
  readonly writes: ApiRequest[];
  /** Leader election: per process, not per shoot. */
  readonly leaderElection: ApiRequest[];
  readonly watches: ApiRequest[];
}

function managerRequests(landscape: Landscape, shoots: number, from: number, to: number): Requests {
  const shootUsers = new Set(Array.from({ length: shoots }, (_, i) => shootUser(i)));
  const all = [
    ...landscape.seedAudit.requests((u) => u === SEED_USER),
    ...landscape.shootAudit.requests((u) => shootUsers.has(u)),
  ].filter((r) => r.at >= from && r.at < to);
  const isLease = (r: ApiRequest) =>
    r.resource === 'coordination.k8s.io/leases' &&
    r.namespace === MANAGER_NAMESPACE &&
    r.username === SEED_USER;
  return {
    all: all.filter((r) => !isLease(r)),
    writes: all.filter((r) => !isLease(r) && WRITE_VERBS.has(r.verb)),
    leaderElection: all.filter(isLease),
    watches: all.filter((r) => r.verb === 'watch'),
  };
}

function describeRequests(requests: readonly ApiRequest[], limit = 6): string {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const key = `${r.verb} ${r.resource}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return (
    [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none'
  );
}

/** Distinct watch streams (path + selectors), split into those of one shoot and those of all. */
function watchStreams(requests: readonly ApiRequest[], shoots: number) {
  const perShoot = new Set<string>();
  const shared = new Set<string>();
  for (const r of requests) {
    if (r.verb !== 'watch') continue;
    const stream = `${r.username} ${watchStream(r.uri)}`;
    const ofOneShoot = r.username !== SEED_USER || (r.namespace?.startsWith('shoot--bench--') ?? false);
    (ofOneShoot ? perShoot : shared).add(stream);
  }
  return { perShoot: perShoot.size / shoots, shared: shared.size };
}

// ---------------------------------------------------------------------------------------------
// one scenario: a program at one scale

interface Result {
  readonly program: string;
  readonly shoots: number;
  readonly reconciledMs: number;
  readonly nodesAnnotatedMs: number;
  readonly cpuToReconcile: number;
  readonly rssKiB: number;
  /** V8's heap in use at the same moment (the process's own metric), KiB. */
  readonly heapKiB: number;
  /** RSS and heap in use at the end of the idle window. */
  readonly idleRssKiB: number;
  readonly idleHeapKiB: number;
  readonly idle: { perShootHour: number; writes: number; breakdown: string; leaderElectionPerHour: number };
  readonly round: { perShoot: number; writesPerShoot: number; breakdown: string; writeBreakdown: string };
  readonly restart: {
    readyMs: number;
    resyncMs: number;
    writes: number;
    writeBreakdown: string;
    /** The first few writes, `verb uri (status)`, to tell what was written. */
    writeSamples: string[];
    exitCode: number | null;
  };
  readonly watches: { perShoot: number; shared: number };
  readonly idleCpuPerMinute: number;
}

async function runScenario(program: Program, shoots: number, dir: string, run: string): Promise<Result> {
  const landscape = await startLandscape(run, dir);
  try {
    const namespaces = await createShoots(landscape, shoots);
    const config = managerConfig(dir, run, landscape);
    const logFile = join(dir, `${run}-controller-manager.log`);

    // 1. first start: everything reconciled
    progress(`${run}: starting the controller-manager of ${program.label} for ${shoots} shoots`);
    let manager = new ManagerProcess(program, config, logFile);
    const stopFirst = cleanups.push(`controller-manager of ${run}`, () => manager.stop());
    const reconciled = await untilReconciled(landscape, manager, namespaces);
    const cpuToReconcile = cpuSeconds(manager.pid);
    await sleep(10_000);
    const rssKiB = procStatus(manager.pid).rssKiB;
    const heapKiB = (await manager.metric('nodejs_heap_size_used_bytes')) / 1024;
    progress(
      `${run}: reconciled after ${(reconciled.shootsMs / 1000).toFixed(1)} s, Nodes annotated after ` +
        `${(reconciled.allMs / 1000).toFixed(1)} s; RSS ${mib(rssKiB)} MiB, heap in use ${mib(heapKiB)} MiB`,
    );

    // 2. idle: nothing changes
    progress(`${run}: idle for ${flags.idle}`);
    const idleFrom = Date.now();
    const idleCpu0 = cpuSeconds(manager.pid);
    await sleep(IDLE_MS);
    const idleTo = Date.now();
    const idleCpuPerMinute = ((cpuSeconds(manager.pid) - idleCpu0) / IDLE_MS) * 60_000;
    const idleRssKiB = procStatus(manager.pid).rssKiB;
    const idleHeapKiB = (await manager.metric('nodejs_heap_size_used_bytes')) / 1024;
    await sleep(2000); // the audit log is written asynchronously
    const idle = managerRequests(landscape, shoots, idleFrom, idleTo);
    const hours = IDLE_MS / 3_600_000;

    // 3. one reconcile of every shoot: each Cluster touched, as the hourly sync would reconcile it
    progress(`${run}: touching every Cluster once`);
    const before = await manager.reconciles('operatingsystemconfig');
    const roundFrom = Date.now();
    for (const namespace of namespaces)
      await landscape.seedAdmin.mergePatch(
        RESOURCE.cluster,
        { name: namespace },
        {
          metadata: { annotations: { 'bench.node-configuration.gardener.cloud/touched': String(roundFrom) } },
        },
      );
    await until('every shoot reconciled once more', RECONCILE_TIMEOUT_MS, async () =>
      (await manager.reconciles('operatingsystemconfig')) >= before + shoots ? true : undefined,
    );
    await sleep(5000);
    const round = managerRequests(landscape, shoots, roundFrom, Date.now());

    // 4. restart
    progress(`${run}: restarting the controller-manager`);
    const exitCode = await manager.stop();
    await stopFirst();
    const restartFrom = Date.now();
    manager = new ManagerProcess(program, config, logFile);
    const stopSecond = cleanups.push(`restarted controller-manager of ${run}`, () => manager.stop());
    const readyMs = await manager.ready();
    await until('every shoot reconciled after the restart', RECONCILE_TIMEOUT_MS, async () =>
      (await manager.reconciles('operatingsystemconfig')) >= shoots ? true : undefined,
    );
    const resyncMs = now() - manager.startedAt;
    await sleep(5000);
    const restart = managerRequests(landscape, shoots, restartFrom, Date.now());
    await manager.stop();
    await stopSecond();

    const all = managerRequests(landscape, shoots, 0, Date.now());
    return {
      program: program.label,
      shoots,
      reconciledMs: reconciled.shootsMs,
      nodesAnnotatedMs: reconciled.allMs,
      cpuToReconcile,
      rssKiB,
      heapKiB,
      idleRssKiB,
      idleHeapKiB,
      idle: {
        perShootHour: idle.all.length / hours / shoots,
        writes: idle.writes.length,
        breakdown: describeRequests(idle.all),
        leaderElectionPerHour: idle.leaderElection.length / hours,
      },
      round: {
        perShoot: round.all.length / shoots,
        writesPerShoot: round.writes.length / shoots,
        breakdown: describeRequests(round.all, 10),
        writeBreakdown: describeRequests(round.writes, 10),
      },
      restart: {
        readyMs,
        resyncMs,
        writes: restart.writes.length,
        writeBreakdown: describeRequests(restart.writes, 10),
        writeSamples: restart.writes.slice(0, 5).map((w) => `${w.verb} ${w.uri} (${w.code})`),
        exitCode,
      },
      watches: watchStreams(all.watches, shoots),
      idleCpuPerMinute,
    };
  } finally {
    await landscape.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// the report

const s = (x: number) => (x / 1000).toFixed(1);

function report(results: readonly Result[], bareNodeKiB: number): void {
  print();
  print(
    '| program | shoots | reconciled after (s) | Nodes annotated after (s) | CPU to reconcile (s) | RSS (MiB) | ' +
      'heap in use (MiB) | RSS / heap after idle (MiB) | idle requests per shoot-hour | idle writes | idle CPU (s/min) | requests per shoot reconcile (writes) | ' +
      'restart: ready / resynced (s) | restart writes | watches per shoot (+ shared) |',
  );
  print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    print(
      `| ${r.program} | ${r.shoots} | ${s(r.reconciledMs)} | ${s(r.nodesAnnotatedMs)} | ${r.cpuToReconcile.toFixed(1)} | ` +
        `${mib(r.rssKiB)} | ${mib(r.heapKiB)} | ${mib(r.idleRssKiB)} / ${mib(r.idleHeapKiB)} | ${r.idle.perShootHour.toFixed(1)} | ${r.idle.writes} | ${r.idleCpuPerMinute.toFixed(2)} | ` +
        `${r.round.perShoot.toFixed(1)} (${r.round.writesPerShoot.toFixed(1)}) | ${s(r.restart.readyMs)} / ` +
        `${s(r.restart.resyncMs)} | ${r.restart.writes} | ${r.watches.perShoot.toFixed(1)} (+${r.watches.shared}) |`,
    );
  }
  print();
  const programs = [...new Set(results.map((r) => r.program))];
  for (const program of programs) {
    const rows = results.filter((r) => r.program === program).sort((a, b) => a.shoots - b.shoots);
    const first = rows[0]!;
    const last = rows.at(-1)!;
    if (last.shoots > first.shoots)
      print(
        `${program}: RSS growth per shoot ${mib((last.rssKiB - first.rssKiB) / (last.shoots - first.shoots))} MiB, ` +
          `heap in use ${mib((last.heapKiB - first.heapKiB) / (last.shoots - first.shoots))} MiB; ` +
          `after the idle window ${mib((last.idleRssKiB - first.idleRssKiB) / (last.shoots - first.shoots))} MiB, ` +
          `heap ${mib((last.idleHeapKiB - first.idleHeapKiB) / (last.shoots - first.shoots))} MiB ` +
          `(${first.shoots} → ${last.shoots} shoots); a bare node process holds ${mib(bareNodeKiB)} MiB`,
      );
  }
  print();
  for (const r of results) {
    print(`${r.program}, ${r.shoots} shoots:`);
    print(
      `  idle requests: ${r.idle.breakdown}; leader election ${r.idle.leaderElectionPerHour.toFixed(0)}/h (per process)`,
    );
    print(`  one reconcile of every shoot: ${r.round.breakdown}`);
    print(`    writes: ${r.round.writeBreakdown}`);
    print(`  restart: exit code ${r.restart.exitCode}; writes while resyncing: ${r.restart.writeBreakdown}`);
    for (const w of r.restart.writeSamples) print(`    ${w}`);
  }
}

// ---------------------------------------------------------------------------------------------
// main

async function main(): Promise<void> {
  delete process.env.TEST_KUBECONFIG;
  delete process.env.TEST_SHOOT_KUBECONFIG;
  const load0 = loadavg();
  print(`# controller-manager benchmark (hack/bench/controller-manager.ts), ${new Date().toISOString()}`);
  print();
  print(
    `node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average at start ` +
      `${load0.map((l) => l.toFixed(2)).join(' / ')}; other jobs share this machine`,
  );
  print(
    `options: shoots ${SCALES.join(', ')}; ${NODES_PER_POOL} Nodes per pool; idle window ${flags.idle}` +
      (flags.baseline ? `; baseline ${flags.baseline}` : ''),
  );
  const dir = mkdtempSync(join(tmpdir(), 'bench-controller-manager-'));
  cleanups.push('temp dir', () => rmSync(dir, { recursive: true, force: true }));

  const programs: Program[] = [];
  if (flags.baseline) programs.push(await programAt(flags.baseline, 'cli/main.ts'));
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
      const result = await runScenario(program, shoots, dir, `r${run++}`);
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

main()
  .catch((e) => {
    process.stderr.write(`benchmark failed: ${(e as Error).stack ?? e}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanups.run());
