/**
 * The operatingsystemconfig reconcile of one selected shoot (key: the shoot namespace, which is
 * also the Cluster's name), in gardenlet's order (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go,
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go): 1. shoot-access secrets;
 * 2. the OSC pair per worker pool; 3. wait until the OS extension reported every OSC ready; 4. the
 * shoot objects rendered from the reconciled OSCs (ManagedResources, or in direct mode applied
 * into the shoot); 5. stale OSCs deleted; 6. node status as metrics and events.
 *
 * Every step observes (caches, a few reads), decides (decide.ts, pure) and writes only what
 * differs. A write that fails is a Warning event on the Cluster naming the object and the API's
 * answer, and the reconcile is retried with backoff; other Clusters go on meanwhile. A Cluster
 * being deleted has what we created removed explicitly (no garbage collector is assumed), guarded
 * by our finalizer on the Cluster.
 */
import type { V1Secret } from '@kubernetes/client-node';
import {
  type Cluster,
  type ClusterObject,
  decodeCluster,
  FEATURE_GATE_OPEN_TELEMETRY_COLLECTOR,
  FEATURE_GATE_USE_GARDENER_NODE_AGENT,
  formatFieldErrors,
  type GardenerVersion,
  instantFromDate,
  type OperatingSystemConfig,
} from '../../api/index.js';
import { renderNodeConfiguration } from '../../charts/node-configuration.js';
import { type Clock, realClock } from '../../runtime/clock.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventRecorder, EventType } from '../../runtime/events.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { Logger } from '../../runtime/logging.js';
import type { ObjectSetApi } from '../../seed/direct-apply/apply.js';
import type { ShootApplier } from '../../seed/direct-apply/shoot-applier.js';
import { createOrMergePatch } from '../../seed/kube/seed-writes.js';
import { type ControllerManagerConfiguration, clusterSelected } from '../../seed/manager/config.js';
import { clusterEventObject } from '../../seed/manager/context.js';
import type { SeedValues } from '../../seed/manager/seed-render-values.js';
import { readMigrationState } from '../../seed/migration-state/state.js';
import type { shootNodeState } from '../../seed/shoot-nodes/shoot-node-state.js';
import { cleanUpShoot, deleteOsc } from './clean-up.js';
import { decideContract } from './contract.js';
import {
  type ClusterDecision,
  decideCluster,
  finalizersWith,
  migrationInput,
  objectsToWrite,
  oscWrites,
  readiness,
  staleOscs,
} from './decide.js';
import type { OscControllerMetrics } from './metrics.js';
import type { ListedEvent } from './node-status.js';
import { NodeStatusReporter } from './node-status-reporter.js';
import { seedObjects } from './rendered.js';
import { applyManagedResources, osExtensionRenderings } from './shoot-objects.js';

/** What the reconcile calls on the seed's API. */
export type OscSeedApi = Pick<
  KubeClient,
  'getIfExists' | 'list' | 'create' | 'mergePatch' | 'delete' | 'update' | 'deleteCollection'
>;

/** What the reconcile reads of a running shoot: its API (direct mode) and its cached Nodes and OSC secrets. */
export interface OscShoot {
  readonly client: ObjectSetApi;
  /** Undefined until the shoot cache listed them. */
  nodeState(cluster: Cluster, role: string): ReturnType<typeof shootNodeState> | undefined;
}

export interface OscReconcilerOptions {
  readonly config: ControllerManagerConfiguration;
  readonly seed: OscSeedApi;
  /** The live Cluster (seed cache). */
  readonly cluster: (name: string) => ClusterObject | undefined;
  /** The live OSCs of a shoot namespace (seed cache). */
  readonly oscs: (namespace: string) => OperatingSystemConfig[];
  /** A live shoot-access secret (seed cache). */
  readonly accessSecret: (namespace: string, name: string) => V1Secret | undefined;
  /** The render values the seed's secrets give for this shoot (CA bundles, SSH keys, images). */
  readonly renderValues: (namespace: string, cluster: Cluster) => Promise<SeedValues>;
  /** The running shoot of a namespace. */
  readonly shoot: (namespace: string) => OscShoot | undefined;
  readonly applier?: ShootApplier;
  readonly recorder: EventRecorder;
  /**
   * The node status events of a Cluster (shoot namespace) on the API, read once per shoot after a
   * start; without it every start reports the node status again.
   */
  readonly nodeStatusEvents?: (namespace: string) => Promise<readonly ListedEvent[]>;
  readonly metrics: OscControllerMetrics;
  readonly clock?: Clock;
}

const WAIT_INTERVAL_MS = 5_000;
const RETRY_MS = 30_000;

/** A write the API refused: the Cluster gets a Warning event with this message. */
export class WriteError extends Error {
  constructor(what: string, cause: unknown) {
    super(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'WriteError';
  }
}

export class OscReconciler {
  private readonly clock: Clock;
  /** Since when we wait for the OS extension, per namespace (for the timeout event). */
  private readonly waitingSince = new Map<string, number>();
  private readonly nodeStatus: NodeStatusReporter;

  constructor(private readonly o: OscReconcilerOptions) {
    this.clock = o.clock ?? realClock;
    this.nodeStatus = new NodeStatusReporter({
      config: o.config,
      metrics: o.metrics,
      shoot: o.shoot,
      clusterUid: (namespace) => o.cluster(namespace)?.metadata?.uid,
      nodeStatusEvents: o.nodeStatusEvents,
      event: (namespace, reason, message) => this.event(namespace, 'Normal', reason, message),
    });
  }

  async reconcile(namespace: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const live = this.o.cluster(namespace);
    const decision = decideCluster(live, clusterSelected(this.o.config, live?.metadata?.labels));
    try {
      return await this.act(namespace, live!, decision, ctx);
    } catch (error) {
      if (error instanceof WriteError) this.event(namespace, 'Warning', 'WriteFailed', error.message);
      throw error;
    }
  }

  private async act(
    namespace: string,
    live: ClusterObject,
    decision: ClusterDecision,
    ctx: ReconcileContext,
  ): Promise<ReconcileResult | undefined> {
    switch (decision.action) {
      case 'ignore':
        return undefined;
      case 'clean-up': {
        const remaining = await cleanUpShoot(this.cleanUpContext(namespace, ctx.log));
        if (remaining > 0) return { requeueAfterMs: WAIT_INTERVAL_MS };
        await this.setFinalizer(live, false);
        this.forget(namespace);
        return undefined;
      }
      case 'release':
        if (decision.removeFinalizer) await this.setFinalizer(live, false);
        this.forget(namespace);
        return undefined;
      case 'reconcile':
        if (decision.addFinalizer) await this.setFinalizer(live, true);
        return this.reconcileShoot(namespace, live, ctx);
    }
  }

  private async reconcileShoot(
    namespace: string,
    live: ClusterObject,
    ctx: ReconcileContext,
  ): Promise<ReconcileResult | undefined> {
    const decoded = decodeCluster(live);
    if (!decoded.ok) {
      // a bad Cluster does not fix itself: report, and wait for the next change of it
      const message = `Cluster cannot be decoded:\n${formatFieldErrors(decoded.errors)}`;
      this.event(namespace, 'Warning', 'InvalidCluster', message);
      return undefined;
    }
    const gardenerVersion = this.contract(namespace, live);
    // a contract we cannot render is reported and waits for the next change of the Cluster
    if (gardenerVersion === undefined) return undefined;
    let seedValues: SeedValues;
    try {
      seedValues = await this.o.renderValues(namespace, decoded.value);
    } catch (e) {
      this.event(namespace, 'Warning', 'MissingSeedSecrets', (e as Error).message);
      return { requeueAfterMs: RETRY_MS };
    }
    const result = await this.deploy(decoded.value, seedValues, gardenerVersion, ctx);
    // during a CA rotation the bundle secrets change again soon: look again then, not in an hour
    return seedValues.rotating ? { requeueAfterMs: RETRY_MS } : result;
  }

  /** The Cluster's contract (its annotation over `gardenerVersion`), or undefined after a Warning event. */
  private contract(namespace: string, live: ClusterObject): GardenerVersion | undefined {
    const decision = decideContract(live.metadata?.annotations, this.o.config.gardenerVersion);
    if (decision.render) return decision.gardenerVersion;
    this.event(namespace, 'Warning', decision.reason, decision.message);
    return undefined;
  }

  private async deploy(
    cluster: Cluster,
    seedValues: SeedValues,
    gardenerVersion: GardenerVersion,
    ctx: ReconcileContext,
  ) {
    const namespace = cluster.name;
    const gate = this.o.config.featureGates[FEATURE_GATE_USE_GARDENER_NODE_AGENT];
    const migration = migrationInput(gate, await readMigrationState(this.o.seed, namespace), gardenerVersion);
    if (migration.wait) {
      // the migration controller records the first phase; its write enqueues this shoot again
      ctx.log.debug('Waiting for the migration controller to record the first phase');
      return { requeueAfterMs: WAIT_INTERVAL_MS };
    }
    if ('blocked' in migration) {
      // the migration's next phase enqueues this shoot again; nothing is written meanwhile
      this.event(namespace, 'Warning', 'ContractSwitchBlocked', migration.blocked);
      return { requeueAfterMs: RETRY_MS };
    }
    const input = {
      cluster,
      values: seedValues.values,
      gardenerVersion,
      useGardenerNodeAgent: gate,
      openTelemetryCollector: this.o.config.featureGates[FEATURE_GATE_OPEN_TELEMETRY_COLLECTOR],
      legacyNodes: migration.legacyNodes,
      now: instantFromDate(new Date(this.clock.now())),
    };
    // what the OS extension must see first; the rest is rendered from the OSCs it reconciled (4.)
    const first = renderNodeConfiguration({ ...input, oscsOnly: true });
    for (const warning of first.warnings.filter((w) => !w.startsWith('ManagedResource ')))
      this.event(namespace, 'Warning', 'RenderWarning', warning);
    const desired = seedObjects(first.seed);

    // 1. shoot-access secrets (their tokens are filled by gardener-resource-manager or our token-requestor)
    for (const secret of objectsToWrite(desired.accessSecrets, (name) =>
      this.o.accessSecret(namespace, name),
    ))
      await this.write(`Secret ${namespace}/${secret.metadata.name}`, () =>
        createOrMergePatch(this.o.seed, RESOURCE.secret, secret),
      );

    // 2. the OSC pair per worker pool, written only when what a node must run changed
    const liveOscs = new Map(this.o.oscs(namespace).map((o) => [o.metadata.name ?? '', o] as const));
    const oscs = oscWrites(desired.oscs, liveOscs);
    for (const osc of oscs.write) {
      await this.write(`OperatingSystemConfig ${namespace}/${osc.metadata.name}`, () =>
        createOrMergePatch(this.o.seed, RESOURCE.operatingSystemConfig, osc),
      );
      this.o.metrics.oscWrites.inc({ namespace, purpose: osc.spec.purpose });
    }

    // 3. wait for the OS extension (its status writes enqueue this shoot)
    const ready = readiness(oscs.current, liveOscs, new Set(oscs.write.map((o) => o.metadata.name ?? '')));
    for (const error of ready.errors) this.event(namespace, 'Warning', 'OperatingSystemConfigError', error);
    if (ready.waitingFor.length > 0) return this.waitForExtension(namespace, ready.waitingFor, ctx.log);
    this.waitingSince.delete(namespace);

    // 4. the shoot objects, rendered from the OSCs as the OS extension left them
    const final = renderNodeConfiguration({
      ...input,
      reconciledOscs: ready.ready,
      ...(input.legacyNodes ? { osExtension: await osExtensionRenderings(this.o.seed, ready.ready) } : {}),
    });
    if (this.o.config.applyMode === 'direct') await this.applyDirectly(namespace, final.seed, ctx.log);
    else
      await applyManagedResources(this.o.seed, namespace, seedObjects(final.seed), (what, run) =>
        this.write(what, run),
      );

    // 5. stale OSCs (removed pools, renamed keys)
    for (const osc of staleOscs(desired.oscs, liveOscs.values()))
      await this.write(`OperatingSystemConfig ${namespace}/${osc.metadata.name}`, () =>
        deleteOsc(this.o.seed, osc, this.clock, ctx.log),
      );

    // 6. node status (unknown until the shoot's caches are filled; add.ts enqueues the shoot then)
    await this.nodeStatus.report(cluster, ctx.log);
    this.o.metrics.pools.set(
      { namespace },
      cluster.shoot.spec.provider.workers.filter((w) => w.machine.image).length,
    );
    return { requeueAfterMs: this.o.config.controllers.operatingSystemConfig.syncPeriod };
  }

  private waitForExtension(namespace: string, waitingFor: string[], log: Logger): ReconcileResult {
    const since = this.waitingSince.get(namespace) ?? this.clock.now();
    this.waitingSince.set(namespace, since);
    const timeout = this.o.config.controllers.operatingSystemConfig.waitTimeout;
    log.info({ waitingFor }, 'Waiting for the OS extension');
    if (this.clock.now() - since >= timeout) {
      this.o.metrics.waitTimeouts.inc({ namespace });
      const message = `OperatingSystemConfigs not ready after ${Math.round(timeout / 1000)}s: ${waitingFor.join('; ')}`;
      this.event(namespace, 'Warning', 'OperatingSystemConfigNotReady', message);
      this.waitingSince.set(namespace, this.clock.now());
    }
    return { requeueAfterMs: WAIT_INTERVAL_MS };
  }

  private async applyDirectly(namespace: string, objects: readonly { kind: string }[], log: Logger) {
    if (!this.o.applier) throw new Error('applyMode direct needs a shoot applier');
    const shoot = this.o.shoot(namespace);
    if (!shoot) throw new Error(`the shoot of ${namespace} is not reachable yet`);
    log.debug('Applying the shoot objects directly');
    await this.write(`the shoot objects of ${namespace}`, () =>
      this.o.applier!.applySets(shoot.client, objects as never, log),
    );
  }

  private cleanUpContext(namespace: string, log: Logger) {
    return {
      namespace,
      seed: this.o.seed,
      oscs: () => this.o.oscs(namespace),
      shoot: this.o.config.applyMode === 'direct' ? this.o.shoot(namespace)?.client : undefined,
      applier: this.o.config.applyMode === 'direct' ? this.o.applier : undefined,
      clock: this.clock,
      log,
      write: <T>(what: string, run: () => Promise<T>) => this.write(what, run),
    };
  }

  private async setFinalizer(live: ClusterObject, present: boolean): Promise<void> {
    const name = live.metadata?.name ?? '';
    await this.write(`the finalizer of Cluster ${name}`, () =>
      this.o.seed.mergePatch(
        RESOURCE.cluster,
        { name },
        {
          // optimistic locking: another party may be changing the finalizers at the same time
          metadata: {
            resourceVersion: live.metadata?.resourceVersion,
            finalizers: finalizersWith(live, present),
          },
        },
      ),
    );
  }

  /** Runs a write; a failure becomes a WriteError naming the object. */
  private async write<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw new WriteError(`writing ${what}`, error);
    }
  }

  private forget(namespace: string) {
    this.waitingSince.delete(namespace);
    this.nodeStatus.forget(namespace);
    this.o.metrics.pools.remove({ namespace });
  }

  private event(namespace: string, type: EventType, reason: string, message: string) {
    void this.o.recorder.event(
      clusterEventObject(namespace, this.o.cluster(namespace)?.metadata?.uid),
      type,
      reason,
      message,
    );
  }
}
