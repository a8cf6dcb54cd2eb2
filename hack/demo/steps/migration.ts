/**
 * Step 2/4, migration = every node's initial apply: the controller-manager restarts with
 * `UseGardenerNodeAgent=true`; once the shoot has the agent's OSC secrets, each node runs
 * node-init's steps (copy the agent from its image, `gardener-node-agent bootstrap`), as the legacy
 * executor would start them on a real node. Each agent obtains its own identity (a client
 * certificate naming its node, asked for with the downloader's token and approved by the
 * controller-manager), removes the downloader, applies its pool's OSC and reports; the legacy
 * resources go once every node reported with a fresh Lease.
 */
import { ANNOTATION, NAMESPACE_KUBE_SYSTEM, nodeAgentLeaseName, PATH } from '../../../api/index.js';
import { MIGRATION_STATE_NAME } from '../../../seed/migration-state/state.js';
import type { NodeResult } from '../scenario-result.js';
import type { ScenarioRun } from '../scenario-run.js';
import {
  legacyObjects,
  oscFileText,
  type PoolSecret,
  poolSecrets,
  populateImages,
  watchNodes,
  withLog,
} from '../shoot-reads.js';
import { Interrupted, until } from '../wait.js';

export interface MigrationOutcome {
  /** The migration phases seen, in order. */
  readonly statesSeen: readonly string[];
  /** When the migration completed (ms since t = 0). */
  readonly completedAt: number;
  /** Legacy objects left after the cleanup (none expected). */
  readonly legacyLeft: readonly string[];
  readonly nodes: ReadonlyMap<string, NodeResult['migration']>;
  /** The agent's OSC secret of each pool after the migration. */
  readonly pools: ReadonlyMap<string, PoolSecret>;
}

export async function migrateToAgent(run: ScenarioRun): Promise<MigrationOutcome> {
  run.heading(
    'migration',
    "2/4 Migration to gardener-node-agent (UseGardenerNodeAgent=true): every node's initial apply by its agent",
  );
  const from = Date.now();
  run.emit('step', 'restarting the controller-manager with UseGardenerNodeAgent=true');
  await run.controllerManager?.stop();
  run.controllerManager = await run.landscape.startControllerManager({
    useGardenerNodeAgent: true,
    logFile: run.controllerManagerLog,
    signal: run.signal,
  });
  const statesSeen: string[] = [];
  const migrationState = async () => {
    const cmap = await run.landscape.seedCore
      .readNamespacedConfigMap({ name: MIGRATION_STATE_NAME, namespace: run.landscape.namespace })
      .catch(() => undefined);
    const state = cmap?.data?.phase;
    if (state && statesSeen.at(-1) !== state) {
      statesSeen.push(state);
      run.emit('progress', `migration state: ${state}`);
    }
    return state;
  };
  const pools = await until(
    "the agent's OSC secrets of every pool in the shoot, the migration running",
    async () => {
      const byPool = await poolSecrets(run.landscape);
      const state = await migrationState();
      const all = run.specs.every((s) => byPool.has(s.pool));
      return all && state === 'Migrating' ? byPool : undefined;
    },
    { timeoutMs: 120_000, signal: run.signal, intervalMs: 500 },
  ).catch(withLog(run.controllerManager!, run.controllerManagerLog));
  run.emit(
    'step',
    `the shoot has the agent's OSC secrets (${[...pools.values()].map((p) => p.name).join(', ')}), no shared agent token; legacy nodes keep their executor secrets`,
  );
  const agentImage = populateImages(run.imagesDir, pools.values(), run.bundle);
  run.emit(
    'step',
    run.options.realNodes
      ? `each real node's image directory: ${agentImage} holds the agent's single executable, the kubelet and valitail images the stand-ins of hack/real-node/stubs`
      : `fake image directory filled (${agentImage} holds the bundled agent; other images stub files)`,
  );
  run.emit(
    'step',
    "on a real node the legacy executor applies the new reconcile OSC and starts gardener-node-init.service; the demo runs node-init's steps for it",
  );
  const nodeInitAt = new Map<string, number>();
  const initQueue = [...run.nodes];
  const initOne = async (): Promise<void> => {
    for (let node = initQueue.shift(); node; node = initQueue.shift()) {
      if (run.signal.aborted) throw new Interrupted();
      const pool = pools.get(node.spec.pool)!;
      nodeInitAt.set(node.name, Date.now());
      await node.nodeInit({
        configYaml: oscFileText(pool.osc, PATH.nodeAgentConfig),
        initScript: oscFileText(pool.osc, PATH.nodeAgentInitScript),
        agentImage,
        osc: pool.osc,
      });
    }
  };
  // a few at a time, like executors whose runs are spread by their own delays
  await Promise.all([initOne(), initOne(), initOne()]);
  const reportedAt = new Map<string, number>();
  const leaseAt = new Map<string, number>();
  await watchNodes({
    what: 'every node to report its pool checksum with a fresh lease, and the migration to complete',
    landscape: run.landscape,
    nodes: run.nodes,
    signal: run.signal,
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
        node.identity() ? `got its own identity ${node.identity()} with the downloader's token` : '',
        node.hasLegacyState() ? '' : 'removed the downloader',
        `applied its pool's OSC (${restarted.length} units restarted)`,
      ];
      run.emit(
        'node',
        `agent took over: ${steps.filter(Boolean).join(', ')}, node reports the checksum`,
        node.name,
      );
    },
    progress: (k) =>
      run.emit('progress', `migration: ${k}/${run.nodes.length} nodes report their pool's checksum`),
    // the migration counts a node once its agent also holds a fresh Lease
    onPoll: async () => {
      const leases = await run.landscape.shootLeases.listNamespacedLease({
        namespace: NAMESPACE_KUBE_SYSTEM,
      });
      const now = Date.now();
      for (const lease of leases.items) {
        const node = run.nodes.find((n) => lease.metadata?.name === nodeAgentLeaseName(n.name));
        const renewed = lease.spec?.renewTime ? new Date(lease.spec.renewTime).getTime() : 0;
        const fresh = renewed + (lease.spec?.leaseDurationSeconds ?? 40) * 1000 >= now;
        if (!node || !fresh || leaseAt.has(node.name)) continue;
        leaseAt.set(node.name, now);
        run.emit('node', `agent holds a fresh Lease ${lease.metadata?.name}`, node.name);
        run.emit('progress', `migration: ${leaseAt.size}/${run.nodes.length} agents hold a fresh Lease`);
      }
    },
    extra: async () => (await migrationState()) === 'Completed',
  }).catch(withLog(run.controllerManager!, run.controllerManagerLog));
  const completedAt = Date.now();
  const legacyLeft = await legacyObjects(run.landscape);
  run.emit(
    'step',
    legacyLeft.length === 0
      ? "legacy resources removed: executor secrets, the downloader's token secret in the shoot, its access secret in the seed"
      : `legacy resources left: ${legacyLeft.join(', ')}`,
  );
  const stillLegacy = run.nodes.filter((n) => n.hasLegacyState()).map((n) => n.name);
  run.emit(
    'step',
    stillLegacy.length === 0
      ? "every agent removed the downloader's directory and unit link from its root"
      : `downloader state left on ${stillLegacy.join(', ')}`,
  );
  run.phases.migration = { from: run.since(from), to: run.since(Date.now()) };
  const nodes = new Map<string, NodeResult['migration']>();
  for (const node of run.nodes)
    nodes.set(node.name, {
      nodeInitAt: run.since(nodeInitAt.get(node.name) ?? Number.NaN),
      reportedAt: run.since(
        Math.max(reportedAt.get(node.name) ?? Number.NaN, leaseAt.get(node.name) ?? Number.NaN),
      ),
      agentRestartedItself: node.agentRestartedItself,
      unitsRestarted: node
        .ops(0)
        .filter((op) => op.op === 'restart')
        .map((op) => ('unit' in op ? op.unit : '')),
      legacyStateRemoved: !node.hasLegacyState(),
    });
  return { statesSeen, completedAt: run.since(completedAt), legacyLeft, nodes, pools };
}
