/**
 * The demo's scenario, shared by `npm run demo` (hack/demo/main.ts) and test/e2e: one shoot on a
 * local landscape (seed and shoot kube-apiserver, the controller-manager in direct mode with
 * os-local, one real gardener-node-agent process per node) taken through, in this order:
 *
 * 1. legacy: the controller-manager runs with `UseGardenerNodeAgent=false`; the nodes are
 *    registered and carry the legacy cloud-config-downloader's state in their roots;
 * 2. migration = every node's initial apply: the gate goes on; each node runs node-init's steps
 *    (image copy, `gardener-node-agent bootstrap`), as the legacy executor would start them on a
 *    real node; the agents fetch their own token with the downloader's, remove the downloader,
 *    apply their pool's OSC and report; the legacy resources go once every node reported;
 * 3. a kubelet configuration change rolled out by the agents after their per-node delays;
 * 4. an access-token rotation reaching every node's token file.
 *
 * One shoot can only be migrated once, and its first agent apply is the migration, so the initial
 * apply and the migration are the same step and come first; the rollout and the rotation then
 * run on the migrated fleet. Everything measured is returned (ScenarioResult) for the summary,
 * the SVG chart and the e2e assertions. Whatever happens (failure, the signal), every process,
 * API server and temp dir is removed before runScenario returns or throws.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import {
  type KubernetesObject,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
  type V1Secret,
} from '@kubernetes/client-node';
import {
  ANNOTATION,
  DATA_KEY,
  formatGoDuration,
  LABEL,
  LABEL_VALUE,
  NAME,
  NAMESPACE_KUBE_SYSTEM,
  nodeAgentLeaseName,
  type OperatingSystemConfig,
  PATH,
  parseGoDuration,
  readOscSecret,
  UNIT,
} from '../../api/index.js';
import { untilAborted } from '../../runtime/abort.js';
import { MIGRATION_STATE_NAME } from '../../seed/migration-state/state.js';
import {
  type Envtest,
  readAuditEvents,
  requireClusterScopedWrites,
  startEnvtest,
} from '../../test/integration/envtest.js';
import { bundleNodeAgent } from '../build-node-agent.js';
import { type ControllerManager, type Landscape, setUpLandscape, tail } from './landscape.js';
import { DemoNode, describeOp, type NodeSpec } from './node.js';
import { planPreview } from './plan-preview.js';
import { killAllNow } from './processes.js';
import { Interrupted, until } from './wait.js';

export const DEFAULT_MAX_DELAY_SECONDS = 20;
const WORK_DIR_PREFIX = 'gardener-osc-demo-run-';
/** In every work dir: the demo's pid and its API servers' data dirs, for reapKilledRuns. */
const OWNER_FILE = 'owner.json';
const AGENT_IMAGE_FILE = '/gardener-node-agent';

export type Phase = 'setup' | 'legacy' | 'migration' | 'rollout' | 'tokens' | 'summary' | 'cleanup';

export interface TimelineEntry {
  /** Milliseconds since the scenario started. */
  readonly t: number;
  readonly phase: Phase;
  /** heading: a phase starts; step: what the demo does; node: what a node did; progress: counts. */
  readonly kind: 'heading' | 'step' | 'node' | 'progress';
  readonly node?: string;
  readonly text: string;
}

export interface ScenarioOptions {
  readonly nodes: number;
  readonly maxDelaySeconds?: number;
  /** Aborting it stops the scenario (Ctrl-C); runScenario then cleans up and throws Interrupted. */
  readonly signal?: AbortSignal;
  readonly onTimeline?: (entry: TimelineEntry) => void;
  /** Where the work dir is created (default: the OS temp dir). */
  readonly tmpDir?: string;
  /** Leave the work dir (roots, logs, recordings) for inspection. */
  readonly keepWorkDir?: boolean;
}

export interface NodeResult {
  readonly name: string;
  readonly pool: string;
  readonly zone: string;
  readonly migration: {
    readonly nodeInitAt: number;
    /** When the node counted as migrated: its pool's checksum and a fresh Lease (ms since start). */
    readonly reportedAt: number;
    readonly agentRestartedItself: boolean;
    readonly unitsRestarted: readonly string[];
    readonly legacyStateRemoved: boolean;
  };
  readonly rollout: {
    /** The node's reconciliation delay, from its annotation. */
    readonly delayMs: number;
    /** When the agent saw the changed OSC secret and queued it with its delay (agent log). */
    readonly enqueuedAt: number;
    /** The delay the agent used (agent log). */
    readonly enqueuedDelayMs: number;
    /** Its first systemd call of the apply (recorded with time). */
    readonly appliedAt: number;
    readonly reportedAt: number;
    readonly restarts: readonly { unit: string; at: number }[];
    readonly checksumOk: boolean;
  };
  readonly token: { readonly updatedAt: number; readonly ok: boolean };
  readonly agentStarts: number;
}

export interface ScenarioResult {
  /** Epoch milliseconds of t = 0. */
  readonly startedAt: number;
  readonly maxDelaySeconds: number;
  readonly workDir: string;
  readonly nodes: readonly NodeResult[];
  readonly pools: readonly { name: string; secret: string; checksum: string; nodes: number }[];
  readonly phases: Readonly<
    Record<'setup' | 'legacy' | 'migration' | 'rollout' | 'tokens', { from: number; to: number }>
  >;
  readonly migration: {
    readonly statesSeen: readonly string[];
    readonly completedAt: number;
    /** DELETE requests of the legacy access secret in the seed's audit log, at the very end. */
    readonly legacyAccessSecretDeletes: number;
    readonly cleanupsMetric: number | undefined;
    /** Legacy objects still present after the cleanup (should be none). */
    readonly legacyLeft: readonly string[];
  };
  readonly rollout: {
    readonly change: string;
    /** When the demo changed the Cluster (ms since start). */
    readonly changedAt: number;
    /** When the first pool's OSC secret changed (ms since start): t = 0 of the chart. */
    readonly secretsChangedAt: number;
    readonly spanMs: number;
    /** kubelet restarts per 1 s bucket from secretsChangedAt on. */
    readonly kubeletRestartsPerSecond: readonly number[];
    readonly maxKubeletRestartsInOneSecond: number;
  };
  readonly tokens: { readonly rotatedAt: number; readonly newTokenAt: number; readonly allUpdatedAt: number };
  readonly timeline: readonly TimelineEntry[];
}

interface PoolSecret {
  readonly pool: string;
  readonly name: string;
  readonly checksum: string;
  readonly raw: string;
  readonly osc: OperatingSystemConfig;
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Nodes over the example's pools, round robin while a pool is below its maximum; zones round robin per pool. */
export function nodeSpecs(
  count: number,
  workers: readonly {
    name: string;
    maximum?: number;
    zones?: string[];
    cri?: { name?: string };
    kubernetes?: { version?: string };
    machine: { architecture?: string };
  }[],
  shootVersion: string,
): NodeSpec[] {
  const perPool = new Map<string, number>(workers.map((w) => [w.name, 0]));
  const width = Math.max(2, String(count).length);
  const specs: NodeSpec[] = [];
  for (let i = 0; i < count; i++) {
    const below = workers.filter((w) => (perPool.get(w.name) ?? 0) < (w.maximum ?? Number.POSITIVE_INFINITY));
    const candidates = below.length > 0 ? below : workers;
    // the pool with the fewest nodes so far, in the example's order
    const worker = candidates.reduce((a, b) =>
      (perPool.get(b.name) ?? 0) < (perPool.get(a.name) ?? 0) ? b : a,
    );
    const index = perPool.get(worker.name) ?? 0;
    perPool.set(worker.name, index + 1);
    const zones = worker.zones?.length ? worker.zones : ['zone-a'];
    specs.push({
      name: `node-${String(i + 1).padStart(width, '0')}`,
      pool: worker.name,
      zone: zones[index % zones.length] ?? 'zone-a',
      kubernetesVersion: worker.kubernetes?.version ?? shootVersion,
      criName: worker.cri?.name,
      architecture: worker.machine.architecture ?? 'amd64',
    });
  }
  return specs;
}

/** The highest count of `times` in one 1 s bucket from `t0` on, and the buckets. */
export function perSecondBuckets(times: readonly number[], t0: number): number[] {
  const buckets: number[] = [];
  for (const t of times) {
    const i = Math.max(0, Math.floor((t - t0) / 1000));
    while (buckets.length <= i) buckets.push(0);
    buckets[i] = (buckets[i] ?? 0) + 1;
  }
  return buckets;
}

export async function runScenario(o: ScenarioOptions): Promise<ScenarioResult> {
  const startedAt = Date.now();
  const maxDelaySeconds = o.maxDelaySeconds ?? DEFAULT_MAX_DELAY_SECONDS;
  const signal = o.signal ?? new AbortController().signal;
  const timeline: TimelineEntry[] = [];
  let phase: Phase = 'setup';
  const since = (epoch: number) => epoch - startedAt;
  const emit = (kind: TimelineEntry['kind'], text: string, node?: string) => {
    const entry: TimelineEntry = { t: Date.now() - startedAt, phase, kind, text, ...(node ? { node } : {}) };
    timeline.push(entry);
    o.onTimeline?.(entry);
  };
  const heading = (p: Phase, text: string) => {
    phase = p;
    emit('heading', text);
  };

  const reaped = reapKilledRuns(o.tmpDir ?? tmpdir());
  const workDir = mkdtempSync(join(o.tmpDir ?? tmpdir(), WORK_DIR_PREFIX));
  // the agent bundle is CommonJS without an extension: no package.json above may say "module"
  writeFileSync(join(workDir, 'package.json'), '{"type":"commonjs"}\n');
  for (const d of ['images', 'nodes', 'controller-manager']) mkdirSync(join(workDir, d));
  // a last resort if the process exits without reaching the finally below
  const envtestDirs: string[] = [];
  const writeOwner = () =>
    writeFileSync(join(workDir, OWNER_FILE), JSON.stringify({ pid: process.pid, envtestDirs }));
  writeOwner();
  const lastResort = () => {
    killAllNow();
    if (!o.keepWorkDir) rmSync(workDir, { recursive: true, force: true });
    // their supervisors stop the servers when this process is gone; the data must go too
    for (const dir of envtestDirs) rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', lastResort);

  const id = Math.random().toString(36).slice(2, 8);
  const envtests: Promise<Envtest>[] = [];
  const nodes: DemoNode[] = [];
  let cm: ControllerManager | undefined;
  let bundling: Promise<void> = Promise.resolve();
  try {
    heading('setup', `Setup: ${o.nodes} nodes, max delay ${maxDelaySeconds} s, work dir ${workDir}`);
    if (reaped.length > 0) emit('step', `removed what a killed demo run left: ${reaped.join(', ')}`);
    if (process.env.TEST_KUBECONFIG)
      throw new Error(
        'the demo starts its own seed and shoot API servers (it needs their audit logs and writes cluster-scoped objects): unset TEST_KUBECONFIG',
      );
    emit('step', 'starting the seed and the shoot kube-apiserver (envtest) and bundling gardener-node-agent');
    envtests.push(startEnvtest({ name: `demo-${id}-seed` }), startEnvtest({ name: `demo-${id}-shoot` }));
    for (const e of envtests)
      e.then(
        (env) => {
          if (env.existing) return;
          envtestDirs.push(dirname(env.kubeconfigFile));
          writeOwner();
        },
        () => undefined,
      );
    const bundle = join(workDir, 'gardener-node-agent.cjs');
    bundling = bundleNodeAgent(bundle).then(() => undefined);
    const [seed, shoot] = await untilInterrupted(
      Promise.all([...envtests, bundling]).then(([s, t]) => [s, t] as [Envtest, Envtest]),
      signal,
    );
    requireClusterScopedWrites(seed);
    requireClusterScopedWrites(shoot);
    emit(
      'step',
      `seed  kube-apiserver ${seed.version.gitVersion} at ${seed.server} (data in ${dirname(seed.kubeconfigFile)})`,
    );
    emit(
      'step',
      `shoot kube-apiserver ${shoot.version.gitVersion} at ${shoot.server} (data in ${dirname(shoot.kubeconfigFile)})`,
    );
    const landscape = await setUpLandscape({ seed, shoot, workDir, maxDelaySeconds });
    const cluster = await landscape.cluster();
    emit(
      'step',
      `Cluster ${landscape.namespace} from examples/cluster.yaml (pools ${cluster.spec.shoot.spec.provider.workers.map((w: { name: string }) => w.name).join(', ')}), annotation ${ANNOTATION.maxDelaySeconds}="${maxDelaySeconds}"`,
    );
    const specs = nodeSpecs(
      o.nodes,
      cluster.spec.shoot.spec.provider.workers,
      cluster.spec.shoot.spec.kubernetes.version,
    );
    const imagesDir = join(workDir, 'images');
    const nodeEnv = {
      apiServer: shoot.server,
      imagesDir,
      emit: (node: string, text: string) => emit('node', text, node),
      signal,
    };
    for (const spec of specs) nodes.push(new DemoNode(spec, workDir, nodeEnv));
    const phases: Record<string, { from: number; to: number }> = {
      setup: { from: 0, to: Date.now() - startedAt },
    };
    const cmLog = join(workDir, 'controller-manager', 'controller-manager.log');

    // ---------------------------------------------------------------- 1. legacy
    heading('legacy', '1/4 Legacy: UseGardenerNodeAgent=false, the nodes run the cloud-config-downloader');
    let from = Date.now();
    emit('step', 'starting gardener-osc controller-manager (direct apply mode, os-local, gate off)');
    cm = await landscape.startControllerManager({ useGardenerNodeAgent: false, logFile: cmLog, signal });
    const legacy = await until(
      'the legacy executor secrets and the downloader token in the shoot',
      async () => {
        const secrets = await listShootSecrets(
          landscape,
          `${LABEL.gardenerRole}=${LABEL_VALUE.roleCloudConfig}`,
        );
        const token = await landscape.shootCore
          .readNamespacedSecret({ name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM })
          .catch(() => undefined);
        const pools = new Set(specs.map((s) => s.pool));
        const byPool = new Map(secrets.map((s) => [s.metadata?.labels?.[LABEL.workerPool] ?? '', s]));
        const data = token?.data?.[DATA_KEY.token];
        if (![...pools].every((p) => byPool.has(p)) || !data) return undefined;
        return { byPool, token: Buffer.from(data, 'base64') };
      },
      { timeoutMs: 120_000, signal, intervalMs: 500 },
    ).catch(withLog(cm, cmLog));
    emit(
      'step',
      `the shoot has the legacy executor secrets (${[...legacy.byPool.values()].map((s) => s.metadata?.name).join(', ')}) and the downloader's token`,
    );
    const downloaderOscs = await legacyDownloaderFiles(landscape);
    for (const node of nodes) {
      const s = node.spec;
      await landscape.shootCore.createNode({
        body: {
          metadata: {
            name: s.name,
            labels: {
              [LABEL.workerPool]: s.pool,
              [LABEL.kubernetesVersion]: s.kubernetesVersion,
              [LABEL.zone]: s.zone,
              [LABEL.hostname]: s.name,
              [LABEL.architecture]: s.architecture,
              [LABEL.nodeRole]: LABEL_VALUE.nodeRoleNode,
              ...(s.criName ? { [LABEL.criName]: s.criName } : {}),
            },
          },
        },
      });
      const files = downloaderOscs.get(s.pool);
      if (!files) throw new Error(`no legacy downloader OSC for pool ${s.pool}`);
      const checksum =
        legacy.byPool.get(s.pool)?.metadata?.annotations?.[ANNOTATION.checksumDataScript] ?? '';
      node.writeLegacyState({
        unitContent: files.unit,
        files: [
          ...files.files,
          { path: PATH.downloaderToken, mode: 0o600, content: legacy.token },
          {
            path: '/var/lib/cloud-config-downloader/downloads/execute-cloud-config-checksum',
            mode: 0o644,
            content: Buffer.from(checksum),
          },
        ],
      });
      // what the legacy executor stamps on its node after each run
      await landscape.shootCore.patchNode(
        {
          name: s.name,
          body: { metadata: { annotations: { [ANNOTATION.checksumCloudConfigData]: checksum } } },
        },
        mergePatch,
      );
    }
    emit(
      'step',
      `registered ${nodes.length} Nodes: ${summarizeSpread(specs)}; each root holds the downloader's token, credentials, script and unit`,
    );
    phases.legacy = { from: since(from), to: Date.now() - startedAt };

    // ---------------------------------------------------------------- 2. migration
    heading(
      'migration',
      "2/4 Migration to gardener-node-agent (UseGardenerNodeAgent=true): every node's initial apply by its agent",
    );
    from = Date.now();
    emit('step', 'restarting the controller-manager with UseGardenerNodeAgent=true');
    await cm.stop();
    cm = await landscape.startControllerManager({ useGardenerNodeAgent: true, logFile: cmLog, signal });
    const statesSeen: string[] = [];
    const migrationState = async () => {
      const cmap = await landscape.seedCore
        .readNamespacedConfigMap({ name: MIGRATION_STATE_NAME, namespace: landscape.namespace })
        .catch(() => undefined);
      const state = cmap?.data?.phase;
      if (state && statesSeen.at(-1) !== state) {
        statesSeen.push(state);
        emit('progress', `migration state: ${state}`);
      }
      return state;
    };
    const pools = await until(
      "the agent's OSC secrets of every pool and its token in the shoot, the migration running",
      async () => {
        const byPool = await poolSecrets(landscape);
        const token = await landscape.shootCore
          .readNamespacedSecret({ name: NAME.nodeAgent, namespace: NAMESPACE_KUBE_SYSTEM })
          .catch(() => undefined);
        const state = await migrationState();
        const all = specs.every((s) => byPool.has(s.pool));
        return all && token?.data?.[DATA_KEY.token] && state === 'Migrating' ? byPool : undefined;
      },
      { timeoutMs: 120_000, signal, intervalMs: 500 },
    ).catch(withLog(cm, cmLog));
    emit(
      'step',
      `the shoot has the agent's OSC secrets (${[...pools.values()].map((p) => p.name).join(', ')}); legacy nodes keep their executor secrets`,
    );
    const agentImage = populateImages(imagesDir, pools.values(), bundle);
    emit(
      'step',
      `fake image directory filled (${agentImage} holds the bundled agent; other images stub files)`,
    );
    emit(
      'step',
      "on a real node the legacy executor applies the new reconcile OSC and starts gardener-node-init.service; the demo runs node-init's steps for it",
    );
    const nodeInitAt = new Map<string, number>();
    const initQueue = [...nodes];
    const initOne = async (): Promise<void> => {
      for (let node = initQueue.shift(); node; node = initQueue.shift()) {
        if (signal.aborted) throw new Interrupted();
        const pool = pools.get(node.spec.pool)!;
        nodeInitAt.set(node.name, Date.now());
        await node.nodeInit({
          configYaml: oscFileText(pool.osc, PATH.nodeAgentConfig),
          initScript: oscFileText(pool.osc, PATH.nodeAgentInitScript),
          agentImage,
        });
      }
    };
    // a few at a time, like executors whose runs are spread by their own delays
    await Promise.all([initOne(), initOne(), initOne()]);
    const reportedAt = new Map<string, number>();
    const leaseAt = new Map<string, number>();
    await watchNodes({
      what: 'every node to report its pool checksum with a fresh lease, and the migration to complete',
      landscape,
      nodes,
      signal,
      timeoutMs: 180_000,
      done: (node, n) =>
        n.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData] === pools.get(node.spec.pool)?.checksum,
      onDone: (node, at) => {
        reportedAt.set(node.name, at);
        const restarted = node
          .ops()
          .filter((op) => op.op === 'restart')
          .map((op) => ('unit' in op ? op.unit : ''));
        const steps = [
          node.readRootFile(PATH.nodeAgentToken) !== undefined
            ? "fetched its own token with the downloader's"
            : '',
          node.hasLegacyState() ? '' : 'removed the downloader',
          `applied its pool's OSC (${restarted.length} units restarted)`,
        ];
        emit(
          'node',
          `agent took over: ${steps.filter(Boolean).join(', ')}, node reports the checksum`,
          node.name,
        );
      },
      progress: (k) => emit('progress', `migration: ${k}/${nodes.length} nodes report their pool's checksum`),
      // the migration counts a node once its agent also holds a fresh Lease
      onPoll: async () => {
        const leases = await landscape.shootLeases.listNamespacedLease({ namespace: NAMESPACE_KUBE_SYSTEM });
        const now = Date.now();
        for (const lease of leases.items) {
          const node = nodes.find((n) => lease.metadata?.name === nodeAgentLeaseName(n.name));
          const renewed = lease.spec?.renewTime ? new Date(lease.spec.renewTime).getTime() : 0;
          const fresh = renewed + (lease.spec?.leaseDurationSeconds ?? 40) * 1000 >= now;
          if (!node || !fresh || leaseAt.has(node.name)) continue;
          leaseAt.set(node.name, now);
          emit('node', `agent holds a fresh Lease ${lease.metadata?.name}`, node.name);
          emit('progress', `migration: ${leaseAt.size}/${nodes.length} agents hold a fresh Lease`);
        }
      },
      extra: async () => (await migrationState()) === 'Completed',
    }).catch(withLog(cm, cmLog));
    const completedAt = Date.now();
    const legacyLeft = await legacyObjects(landscape);
    emit(
      'step',
      legacyLeft.length === 0
        ? "legacy resources removed: executor secrets, the downloader's token secret in the shoot, its access secret in the seed"
        : `legacy resources left: ${legacyLeft.join(', ')}`,
    );
    const stillLegacy = nodes.filter((n) => n.hasLegacyState()).map((n) => n.name);
    emit(
      'step',
      stillLegacy.length === 0
        ? "every agent removed the downloader's directory and unit link from its root"
        : `downloader state left on ${stillLegacy.join(', ')}`,
    );
    phases.migration = { from: since(from), to: Date.now() - startedAt };

    // ---------------------------------------------------------------- 3. rollout
    heading('rollout', `3/4 Kubelet configuration change, rolled out within the ${maxDelaySeconds} s window`);
    from = Date.now();
    const delays = await until(
      'a reconciliation delay on every node',
      async () => {
        const list = await landscape.shootCore.listNode();
        const m = new Map<string, number>();
        for (const n of list.items) {
          const text = n.metadata?.annotations?.[ANNOTATION.reconciliationDelay];
          if (text !== undefined) m.set(n.metadata?.name ?? '', parseGoDuration(text) / 1e6);
        }
        return nodes.every((n) => m.has(n.name)) ? m : undefined;
      },
      { timeoutMs: 60_000, signal },
    );
    emit(
      'step',
      `per-node delays from the node-delay controller: ${[...nodes]
        .sort((a, b) => (delays.get(a.name) ?? 0) - (delays.get(b.name) ?? 0))
        .map((n) => `${n.name} ${formatGoDuration((delays.get(n.name) ?? 0) * 1e6)}`)
        .join(', ')}`,
    );
    const marks = new Map(nodes.map((n) => [n.name, { ops: n.ops().length, log: n.logSize() }]));
    const before = await poolSecrets(landscape);
    let change = '';
    const changeShoot = (s: Parameters<Parameters<Landscape['patchShoot']>[0]>[0]) => {
      const parts: string[] = [];
      s.spec.kubernetes.kubelet = s.spec.kubernetes.kubelet ?? {};
      const kubelet = s.spec.kubernetes.kubelet;
      kubelet.maxPods = (kubelet.maxPods ?? 110) + 10;
      parts.push(`shoot kubelet maxPods ${kubelet.maxPods - 10} -> ${kubelet.maxPods}`);
      for (const w of s.spec.provider.workers as {
        name: string;
        kubernetes?: { kubelet?: { maxPods?: number } };
      }[]) {
        const own = w.kubernetes?.kubelet;
        if (!own) continue;
        own.maxPods = (own.maxPods ?? 110) + 10;
        parts.push(`${w.name}'s own kubelet maxPods ${own.maxPods - 10} -> ${own.maxPods}`);
      }
      change = parts.join(', ');
    };
    const live = await landscape.cluster();
    const changed = structuredClone(live);
    changeShoot(changed.spec.shoot);
    for (const line of planPreview(live, changed)) emit('step', `plan: ${line}`);
    await landscape.patchShoot(changeShoot);
    const changedAt = Date.now();
    emit('step', `changed the Cluster: ${change}`);
    let firstChangeSeenAt: number | undefined;
    const after = await until(
      "every pool's OSC secret to change",
      async () => {
        const now = await poolSecrets(landscape);
        const changed = [...before].filter(
          ([pool, s]) => now.get(pool) && now.get(pool)?.checksum !== s.checksum,
        );
        if (changed.length > 0) firstChangeSeenAt ??= Date.now();
        return changed.length === before.size ? now : undefined;
      },
      { timeoutMs: 90_000, signal, intervalMs: 100 },
    ).catch(withLog(cm, cmLog));
    emit(
      'step',
      `the OSC secrets changed (${[...after.values()].map((p) => `${p.pool} ${p.checksum.slice(0, 8)}`).join(', ')}); each agent waits its delay`,
    );
    const rolloutReported = new Map<string, number>();
    await watchNodes({
      what: "every node to apply its pool's new OSC",
      landscape,
      nodes,
      signal,
      timeoutMs: maxDelaySeconds * 1000 + 120_000,
      done: (node, n) =>
        n.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData] === after.get(node.spec.pool)?.checksum,
      onDone: (node, at) => {
        rolloutReported.set(node.name, at);
        const mark = marks.get(node.name)!;
        const restarts = node.ops(mark.ops).filter((op) => op.op === 'restart');
        const enqueued = node
          .logEntries(mark.log)
          .find((e) => e.msg === 'Enqueued secret with operating system config with a jitter period');
        emit(
          'node',
          `applied after waiting ${enqueued ? formatGoDuration(Number(enqueued.delayMs) * 1e6) : '?'} (${node.spec.pool}, ${node.spec.zone}): ${restarts.map(describeOp).join(', ') || 'nothing restarted'}`,
          node.name,
        );
      },
      progress: (k) => emit('progress', `rollout: ${k}/${nodes.length} nodes applied`),
    });
    const rolloutResults = new Map<string, NodeResult['rollout']>();
    for (const node of nodes) {
      const mark = marks.get(node.name)!;
      const ops = node.ops(mark.ops);
      const entries = node.logEntries(mark.log);
      const enqueued = entries.find(
        (e) => e.msg === 'Enqueued secret with operating system config with a jitter period',
      );
      const firstOp = ops.find((op) => op.at);
      rolloutResults.set(node.name, {
        delayMs: delays.get(node.name) ?? Number.NaN,
        enqueuedAt: enqueued ? since(Date.parse(String(enqueued.time))) : Number.NaN,
        enqueuedDelayMs: enqueued ? Number(enqueued.delayMs) : Number.NaN,
        appliedAt: firstOp?.at ? since(Date.parse(firstOp.at)) : Number.NaN,
        reportedAt: since(rolloutReported.get(node.name) ?? Number.NaN),
        restarts: ops
          .filter((op) => op.op === 'restart' && 'unit' in op)
          .map((op) => ({ unit: 'unit' in op ? op.unit : '', at: since(Date.parse(op.at ?? '')) })),
        checksumOk: true,
      });
    }
    // t = 0 of the rollout: the first sign of the changed secrets (the demo polls, the agents watch)
    const secretsChangedAt = Math.min(
      firstChangeSeenAt ?? Date.now(),
      ...[...rolloutResults.values()].map((r) => r.enqueuedAt + startedAt).filter(Number.isFinite),
    );
    const applied = [...rolloutResults.values()].map((r) => r.appliedAt);
    const spanMs = Math.max(...applied) - Math.min(...applied);
    const kubeletRestarts = [...rolloutResults.values()].flatMap((r) =>
      r.restarts.filter((x) => x.unit === UNIT.kubelet).map((x) => x.at),
    );
    const buckets = perSecondBuckets(kubeletRestarts, since(secretsChangedAt));
    const maxPerSecond = Math.max(0, ...buckets);
    emit(
      'step',
      `rollout done: applies spread over ${(spanMs / 1000).toFixed(1)} s, at most ${maxPerSecond} kubelet restart(s) in any 1 s bucket`,
    );
    phases.rollout = { from: since(from), to: Date.now() - startedAt };

    // ---------------------------------------------------------------- 4. tokens
    heading('tokens', "4/4 Access-token rotation: the agent's token reaches every node");
    from = Date.now();
    const tokenMarks = new Map(nodes.map((n) => [n.name, n.logSize()]));
    const oldToken = (
      await landscape.shootCore.readNamespacedSecret({
        name: NAME.nodeAgent,
        namespace: NAMESPACE_KUBE_SYSTEM,
      })
    ).data?.[DATA_KEY.token];
    const accessSecret = `${NAME.shootAccessPrefix}${NAME.nodeAgent}`;
    await landscape.seedCore.patchNamespacedSecret(
      {
        name: accessSecret,
        namespace: landscape.namespace,
        body: {
          metadata: {
            annotations: {
              [ANNOTATION.tokenRenewTimestamp]: new Date(Date.now() - 3600_000)
                .toISOString()
                .replace(/\.\d+Z$/, 'Z'),
            },
          },
        },
      },
      mergePatch,
    );
    const rotatedAt = Date.now();
    emit(
      'step',
      `set ${ANNOTATION.tokenRenewTimestamp} of the seed secret ${accessSecret} one hour into the past`,
    );
    const newToken = await until(
      'the token-requestor to write a new token into the shoot',
      async () => {
        const t = (
          await landscape.shootCore.readNamespacedSecret({
            name: NAME.nodeAgent,
            namespace: NAMESPACE_KUBE_SYSTEM,
          })
        ).data?.[DATA_KEY.token];
        return t && t !== oldToken ? Buffer.from(t, 'base64').toString('utf8') : undefined;
      },
      { timeoutMs: 60_000, signal, intervalMs: 100 },
    ).catch(withLog(cm, cmLog));
    const newTokenAt = Date.now();
    emit('step', `the token-requestor wrote a new token into kube-system/${NAME.nodeAgent}`);
    const tokenAt = new Map<string, number>();
    const tokenLogUpdate = (node: DemoNode) => {
      const entry = node
        .logEntries(tokenMarks.get(node.name) ?? 0)
        .find((e) => e.msg === 'Updated token file' && e.path === PATH.nodeAgentToken);
      return entry ? Date.parse(String(entry.time)) : undefined;
    };
    await until(
      "every node's token file to hold the new token",
      () => {
        for (const node of nodes) {
          if (tokenAt.has(node.name)) continue;
          if (node.readRootFile(PATH.nodeAgentToken) === newToken) {
            const at = tokenLogUpdate(node) ?? Date.now();
            tokenAt.set(node.name, at);
            emit(
              'node',
              `token file updated, ${((at - rotatedAt) / 1000).toFixed(2)} s after the renew timestamp was moved`,
              node.name,
            );
          }
        }
        assertNodesHealthy(nodes);
        return tokenAt.size === nodes.length;
      },
      { timeoutMs: 60_000, signal, intervalMs: 100 },
    );
    const allUpdatedAt = Date.now();
    phases.tokens = { from: since(from), to: Date.now() - startedAt };

    // ---------------------------------------------------------------- results
    heading('summary', 'Summary');
    const finalSecrets = await poolSecrets(landscape);
    const finalNodes = new Map(
      (await landscape.shootCore.listNode()).items.map((n) => [n.metadata?.name ?? '', n]),
    );
    const deletes = readAuditEvents(seed).filter(
      (e) =>
        e.verb === 'delete' &&
        e.stage === 'ResponseComplete' &&
        e.requestURI.includes(`/namespaces/${landscape.namespace}/secrets/shoot-access-${NAME.downloader}`),
    ).length;
    const cleanups = await cm.metric('gardener_osc_migration_cleanups_total', {
      namespace: landscape.namespace,
    });
    const nodeResults: NodeResult[] = nodes.map((node) => {
      const initAt = nodeInitAt.get(node.name) ?? Number.NaN;
      const migrationOps = node.ops(0).slice(0, marks.get(node.name)?.ops ?? 0);
      return {
        name: node.name,
        pool: node.spec.pool,
        zone: node.spec.zone,
        migration: {
          nodeInitAt: since(initAt),
          reportedAt: since(
            Math.max(reportedAt.get(node.name) ?? Number.NaN, leaseAt.get(node.name) ?? Number.NaN),
          ),
          agentRestartedItself: node.agentExits.some((e) => e.restartedItself),
          unitsRestarted: migrationOps
            .filter((op) => op.op === 'restart')
            .map((op) => ('unit' in op ? op.unit : '')),
          legacyStateRemoved: !node.hasLegacyState(),
        },
        rollout: {
          ...rolloutResults.get(node.name)!,
          checksumOk:
            finalNodes.get(node.name)?.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData] ===
            finalSecrets.get(node.spec.pool)?.checksum,
        },
        token: {
          updatedAt: since(tokenAt.get(node.name) ?? Number.NaN),
          ok: node.readRootFile(PATH.nodeAgentToken) === newToken,
        },
        agentStarts: node.agentStarts.length,
      };
    });
    return {
      startedAt,
      maxDelaySeconds,
      workDir,
      nodes: nodeResults,
      pools: [...finalSecrets.values()].map((p) => ({
        name: p.pool,
        secret: p.name,
        checksum: p.checksum,
        nodes: nodes.filter((n) => n.spec.pool === p.pool).length,
      })),
      phases: phases as ScenarioResult['phases'],
      migration: {
        statesSeen,
        completedAt: since(completedAt),
        legacyAccessSecretDeletes: deletes,
        cleanupsMetric: cleanups,
        legacyLeft,
      },
      rollout: {
        change,
        changedAt: since(changedAt),
        secretsChangedAt: since(secretsChangedAt),
        spanMs,
        kubeletRestartsPerSecond: buckets,
        maxKubeletRestartsInOneSecond: maxPerSecond,
      },
      tokens: {
        rotatedAt: since(rotatedAt),
        newTokenAt: since(newTokenAt),
        allUpdatedAt: since(allUpdatedAt),
      },
      timeline,
    };
  } finally {
    phase = 'cleanup';
    await Promise.allSettled(nodes.map((n) => n.stop()));
    await cm?.stop().catch(() => undefined);
    await Promise.allSettled([bundling, ...envtests.map((e) => e.then((env) => env.stop()))]);
    killAllNow();
    if (!o.keepWorkDir) rmSync(workDir, { recursive: true, force: true });
    process.off('exit', lastResort);
  }
}

/**
 * A demo killed by SIGKILL cannot clean up: its children go with it (their supervisors see to
 * that), its temp dirs stay. The next run removes the work dirs (and API server data dirs) of runs
 * whose process is gone.
 */
export function reapKilledRuns(dir: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(dir).filter((n) => n.startsWith(WORK_DIR_PREFIX))) {
    const workDir = join(dir, name);
    let owner: { pid: number; envtestDirs: string[] };
    try {
      owner = JSON.parse(readFileSync(join(workDir, OWNER_FILE), 'utf8')) as typeof owner;
    } catch {
      continue; // not (yet) a demo's work dir
    }
    try {
      process.kill(owner.pid, 0);
      continue; // its demo still runs
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') continue; // someone else's process
    }
    for (const d of [workDir, ...owner.envtestDirs.filter((d) => basename(d).startsWith('envtest-demo-'))]) {
      rmSync(d, { recursive: true, force: true });
      removed.push(d);
    }
  }
  return removed;
}

/** Adds the controller-manager's log tail to an error (not to an interruption). */
function withLog(cm: ControllerManager, logFile: string) {
  return (e: unknown): never => {
    if (e instanceof Interrupted) throw e;
    throw new Error(
      `${(e as Error).message}${cm.process.running ? '' : ' (the controller-manager exited)'}\n--- controller-manager log (tail) ---\n${tail(logFile)}`,
    );
  };
}

function assertNodesHealthy(nodes: readonly DemoNode[]): void {
  const broken = nodes.find((n) => n.fatal);
  if (broken) throw new Error(broken.fatal);
}

/**
 * Polls the shoot's Nodes until `done` holds for every node (and `extra`, if given); calls onDone
 * once per node, progress whenever the count changes. A crash-looping agent fails it at once.
 */
async function watchNodes(o: {
  what: string;
  landscape: Landscape;
  nodes: readonly DemoNode[];
  signal: AbortSignal;
  timeoutMs: number;
  done: (node: DemoNode, object: V1Node) => boolean;
  onDone: (node: DemoNode, at: number) => void;
  progress: (count: number) => void;
  /** Runs first in every poll. */
  onPoll?: () => Promise<void>;
  extra?: () => Promise<boolean>;
}): Promise<void> {
  const finished = new Set<string>();
  let shown = -1;
  let fatal: Error | undefined;
  await until(
    o.what,
    async () => {
      await o.onPoll?.();
      const list = await o.landscape.shootCore.listNode();
      const byName = new Map(list.items.map((n) => [n.metadata?.name ?? '', n]));
      const now = Date.now();
      for (const node of o.nodes) {
        if (node.fatal) fatal = new Error(node.fatal);
        const object = byName.get(node.name);
        if (!finished.has(node.name) && object && o.done(node, object)) {
          finished.add(node.name);
          o.onDone(node, now);
        }
      }
      if (finished.size !== shown) {
        shown = finished.size;
        o.progress(shown);
      }
      if (fatal) return true;
      return finished.size === o.nodes.length && (!o.extra || (await o.extra()));
    },
    { timeoutMs: o.timeoutMs, signal: o.signal, intervalMs: 200 },
  );
  if (fatal) throw fatal;
}

async function listShootSecrets(landscape: Landscape, labelSelector: string): Promise<V1Secret[]> {
  return (await landscape.shootCore.listNamespacedSecret({ namespace: NAMESPACE_KUBE_SYSTEM, labelSelector }))
    .items;
}

/** The agent's OSC secret of each pool in the shoot. */
async function poolSecrets(landscape: Landscape): Promise<Map<string, PoolSecret>> {
  const out = new Map<string, PoolSecret>();
  for (const s of await listShootSecrets(
    landscape,
    `${LABEL.gardenerRole}=${LABEL_VALUE.roleOperatingSystemConfig}`,
  )) {
    const pool = s.metadata?.labels?.[LABEL.workerPool];
    if (!pool) continue;
    const { raw, checksum, osc } = readOscSecret(s as Parameters<typeof readOscSecret>[0]);
    out.set(pool, { pool, name: s.metadata?.name ?? '', checksum: checksum ?? '', raw, osc });
  }
  return out;
}

/** The files and unit of each pool's legacy downloader OSC (provision purpose) in the seed. */
async function legacyDownloaderFiles(
  landscape: Landscape,
): Promise<Map<string, { files: { path: string; mode: number; content: Buffer }[]; unit: string }>> {
  const list = await landscape.seedObjects.list(
    'extensions.gardener.cloud/v1alpha1',
    'OperatingSystemConfig',
    landscape.namespace,
  );
  const out = new Map<string, { files: { path: string; mode: number; content: Buffer }[]; unit: string }>();
  for (const item of list.items as (KubernetesObject & { spec: OperatingSystemConfig['spec'] })[]) {
    if (!item.metadata?.name?.endsWith('-downloader')) continue;
    const pool = item.metadata.labels?.[LABEL.workerPool] ?? '';
    const files: { path: string; mode: number; content: Buffer }[] = [];
    for (const f of item.spec.files ?? []) {
      // the bootstrap token placeholder is replaced per machine and gone once the kubelet has its certificate
      if (f.path === PATH.downloaderBootstrapToken) continue;
      let content: Buffer | undefined;
      if (f.content.inline) {
        const { encoding, data } = f.content.inline;
        content = encoding === 'b64' ? Buffer.from(data, 'base64') : Buffer.from(data);
      } else if (f.content.secretRef) {
        const secret = await landscape.seedCore.readNamespacedSecret({
          name: f.content.secretRef.name,
          namespace: landscape.namespace,
        });
        content = Buffer.from(secret.data?.[f.content.secretRef.dataKey] ?? '', 'base64');
      }
      if (content) files.push({ path: f.path, mode: f.permissions ?? 0o644, content });
    }
    const unit = (item.spec.units ?? []).find((u) => u.name === UNIT.downloader)?.content ?? '';
    out.set(pool, { files, unit });
  }
  return out;
}

/** A file's inline content from an OSC (the config and init script node-init needs). */
function oscFileText(osc: OperatingSystemConfig, path: string): string {
  const file = [...(osc.spec.files ?? []), ...(osc.status?.extensionFiles ?? [])].find(
    (f) => f.path === path,
  );
  const inline = file?.content.inline;
  if (!inline) throw new Error(`the OSC has no inline file ${path}`);
  return inline.encoding === 'b64' ? Buffer.from(inline.data, 'base64').toString('utf8') : inline.data;
}

/**
 * Fills the fake image directory with every file the OSCs take from images: the agent's image
 * holds the bundled agent, every other image a stub. Returns the agent's image.
 */
function populateImages(dir: string, pools: Iterable<PoolSecret>, bundle: string): string {
  let agentImage = '';
  const agent = `#!/usr/bin/env node\n${readFileSync(bundle, 'utf8')}`;
  for (const pool of pools) {
    for (const f of [...(pool.osc.spec.files ?? []), ...(pool.osc.status?.extensionFiles ?? [])]) {
      const ref = f.content.imageRef;
      if (!ref) continue;
      const target = join(dir, encodeURIComponent(ref.image), ref.filePathInImage);
      if (ref.filePathInImage === AGENT_IMAGE_FILE) agentImage = ref.image;
      if (existsSync(target)) continue;
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(
        target,
        ref.filePathInImage === AGENT_IMAGE_FILE
          ? agent
          : `#!/bin/sh\n# ${ref.filePathInImage} of ${ref.image}: a stub of the demo's fake image directory\nexit 0\n`,
        { mode: 0o755 },
      );
    }
  }
  if (!agentImage) throw new Error(`no OSC takes ${AGENT_IMAGE_FILE} from an image`);
  return agentImage;
}

/** Which legacy objects are left after the cleanup. */
async function legacyObjects(landscape: Landscape): Promise<string[]> {
  const left: string[] = [];
  const exists = (p: Promise<unknown>) =>
    p.then(
      () => true,
      () => false,
    );
  if (
    await exists(
      landscape.shootCore.readNamespacedSecret({ name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM }),
    )
  )
    left.push(`shoot secret kube-system/${NAME.downloader}`);
  for (const s of await listShootSecrets(landscape, `${LABEL.gardenerRole}=${LABEL_VALUE.roleCloudConfig}`))
    left.push(`shoot secret kube-system/${s.metadata?.name}`);
  const access = `${NAME.shootAccessPrefix}${NAME.downloader}`;
  if (await exists(landscape.seedCore.readNamespacedSecret({ name: access, namespace: landscape.namespace })))
    left.push(`seed secret ${landscape.namespace}/${access}`);
  return left;
}

function summarizeSpread(specs: readonly NodeSpec[]): string {
  const pools = new Map<string, NodeSpec[]>();
  for (const s of specs) pools.set(s.pool, [...(pools.get(s.pool) ?? []), s]);
  return [...pools]
    .map(([pool, list]) => {
      const zones = new Map<string, number>();
      for (const s of list) zones.set(s.zone, (zones.get(s.zone) ?? 0) + 1);
      return `${pool} ${list.length} (${[...zones].map(([z, n]) => `${z} ${n}`).join(', ')})`;
    })
    .join('; ');
}

/** Rejects with Interrupted when the signal aborts first (the promise runs on; cleanup catches it). */
function untilInterrupted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return untilAborted(promise, signal, () => new Interrupted());
}
