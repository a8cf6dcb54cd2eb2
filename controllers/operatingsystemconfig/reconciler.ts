/**
 * The seed OperatingSystemConfig controller's decisions for one selected shoot (key: the shoot
 * namespace, which is also the Cluster's name), in gardenlet's order (seed-side §2, §9):
 *
 * 1. shoot-access secrets; 2. the OSC pair per worker pool (written only when what a node must
 *    run changed, so an OS extension's status write never triggers another round); 3. wait until
 *    the OS extension reported every OSC ready; 4. the shoot objects rendered from the reconciled
 *    OSCs: ManagedResources (or, in direct mode, server-side applied into the shoot); 5. stale
 *    OSCs and ManagedResource secrets deleted; 6. node status as metrics and events.
 *
 * A Cluster being deleted has what we created removed explicitly (no garbage collector is
 * assumed), guarded by our finalizer on the Cluster.
 */
import {
  CoreV1Api,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  type V1Secret,
} from '@kubernetes/client-node';
import {
  ANNOTATION,
  CLUSTER_API_VERSION,
  CLUSTER_KIND,
  type Cluster,
  DATA_KEY,
  DOWNLOADER_ACCESS,
  decodeCluster,
  FEATURE_GATE_USE_GARDENER_NODE_AGENT,
  formatFieldErrors,
  formatRfc3339,
  formatRfc3339Nano,
  instantFromDate,
  LABEL,
  LABEL_VALUE,
  MANAGED_RESOURCE_API_VERSION,
  MANAGED_RESOURCE_KIND,
  type ManagedResource,
  NAME,
  NODE_AGENT_ACCESS,
  type OperatingSystemConfig,
  OSC_API_VERSION,
  OSC_KIND,
  VALITAIL_ACCESS,
} from '../../api/index.js';
import type { OsExtensionRendering } from '../../charts/managed-resource/legacy-executor.js';
import { renderNodeConfiguration } from '../../charts/node-configuration.js';
import type { RenderValues } from '../../charts/values/render-values.js';
import { type Clock, realClock } from '../../runtime/clock.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { Logger } from '../../runtime/logging.js';
import type { ShootApplier } from '../../seed/direct-apply/shoot-applier.js';
import {
  createIfAbsent,
  createOrMergePatch,
  deleteIfPresent,
  FIELD_MANAGER,
} from '../../seed/kube/seed-writes.js';
import { type ControllerManagerConfiguration, clusterSelected } from '../../seed/manager/config.js';
import { clusterEventObject } from '../../seed/manager/shoot-context.js';
import {
  deleteMigrationState,
  legacyNodesRemain,
  nextPhaseOnReconcile,
  readMigrationState,
  writeMigrationState,
} from '../../seed/migration-state/state.js';
import { readShootNodeState } from '../../seed/shoot-nodes/shoot-node-state.js';
import type { OscControllerMetrics } from './metrics.js';
import { nodesNotUpdated } from './nodes-updated.js';
import { oscReadiness } from './osc-readiness.js';
import { sameDesiredState } from './same-desired-state.js';

export const CLUSTER_FINALIZER = 'node-configuration.gardener.cloud/controller-manager';

export interface OscReconcilerOptions {
  readonly seed: KubeConfig;
  readonly config: ControllerManagerConfiguration;
  /** The live Cluster object (from the informer cache). */
  readonly cluster: (name: string) => KubernetesObject | undefined;
  /** The render values the seed's secrets give for this shoot (CA bundles, SSH keys, images). */
  readonly renderValues: (
    namespace: string,
    cluster: Cluster,
  ) => Promise<{ values: RenderValues; rotating: boolean }>;
  readonly shootKubeConfig: (namespace: string) => Promise<KubeConfig>;
  readonly applier?: ShootApplier;
  readonly recorder: EventRecorder;
  readonly metrics: OscControllerMetrics;
  readonly log: Logger;
  readonly clock?: Clock;
}

const WAIT_INTERVAL_MS = 5_000;
const RETRY_MS = 30_000;

interface ClusterMeta {
  readonly metadata?: {
    name?: string;
    uid?: string;
    labels?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: unknown;
    resourceVersion?: string;
  };
}

const MANAGED_RESOURCES = [NAME.managedResourceNodeAgent, NAME.managedResourceLegacy] as const;

export class OscReconciler {
  private readonly objects: KubernetesObjectApi;
  private readonly core: CoreV1Api;
  private readonly clock: Clock;
  /** Since when we wait for the OS extension, per namespace (for the timeout event). */
  private readonly waitingSince = new Map<string, number>();
  /** The last node status we reported per namespace, so events are sent on changes only. */
  private readonly lastNodeStatus = new Map<string, string>();

  constructor(private readonly o: OscReconcilerOptions) {
    this.objects = KubernetesObjectApi.makeApiClient(o.seed);
    this.core = o.seed.makeApiClient(CoreV1Api);
    this.clock = o.clock ?? realClock;
  }

  async reconcile(namespace: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const live = this.o.cluster(namespace) as (KubernetesObject & ClusterMeta) | undefined;
    if (!live) return undefined;
    const ours = live.metadata?.finalizers?.includes(CLUSTER_FINALIZER) ?? false;
    if (live.metadata?.deletionTimestamp) {
      if (!ours) return undefined;
      const remaining = await this.cleanUp(namespace, ctx.log);
      if (remaining > 0) return { requeueAfterMs: WAIT_INTERVAL_MS };
      await this.setFinalizer(live, false);
      this.forget(namespace);
      return undefined;
    }
    if (!clusterSelected(this.o.config, live.metadata?.labels)) {
      // deselected: hand the shoot over untouched (to a gardenlet, say); only our finalizer goes
      if (ours) await this.setFinalizer(live, false);
      this.forget(namespace);
      return undefined;
    }
    if (!ours) await this.setFinalizer(live, true);

    const decoded = decodeCluster(live);
    if (!decoded.ok) {
      // a bad Cluster does not fix itself: report, and wait for the next change of it
      this.event(
        live,
        'Warning',
        'InvalidCluster',
        `Cluster cannot be decoded:\n${formatFieldErrors(decoded.errors)}`,
      );
      return undefined;
    }
    const cluster = decoded.value;
    let seedValues: { values: RenderValues; rotating: boolean };
    try {
      seedValues = await this.o.renderValues(namespace, cluster);
    } catch (e) {
      this.event(live, 'Warning', 'MissingSeedSecrets', (e as Error).message);
      return { requeueAfterMs: RETRY_MS };
    }
    const result = await this.deploy(live, cluster, seedValues.values, ctx);
    // during a CA rotation the bundle secrets change again soon: look again then, not in an hour
    return seedValues.rotating ? { requeueAfterMs: RETRY_MS } : result;
  }

  private async deploy(
    live: KubernetesObject & ClusterMeta,
    cluster: Cluster,
    values: RenderValues,
    ctx: ReconcileContext,
  ): Promise<ReconcileResult | undefined> {
    const namespace = cluster.name;
    const gate = this.o.config.featureGates[FEATURE_GATE_USE_GARDENER_NODE_AGENT];
    const state = await this.migrationState(namespace, gate);
    const legacyNodes = legacyNodesRemain(gate, state);
    const now = instantFromDate(new Date(this.clock.now()));
    const input = { cluster, values, useGardenerNodeAgent: gate, legacyNodes, now };
    const first = renderNodeConfiguration(input);
    for (const warning of first.warnings.filter((w) => !w.startsWith('ManagedResource ')))
      this.event(live, 'Warning', 'RenderWarning', warning);

    // 1. shoot-access secrets (their tokens are filled by gardener-resource-manager or our token-requestor)
    for (const secret of first.seed.filter(isShootAccessSecret))
      await createOrMergePatch(this.objects, secret as KubernetesObject);

    // 2. the OSC pair per worker pool
    const desiredOscs = first.seed.filter(isOsc) as unknown as OperatingSystemConfig[];
    const liveOscs = new Map(
      (await this.listOscs(namespace)).map((osc) => [osc.metadata.name, osc] as const),
    );
    const written = new Map<string, OperatingSystemConfig>();
    let wroteAny = false;
    for (const desired of desiredOscs) {
      const name = desired.metadata.name ?? '';
      const current = liveOscs.get(name);
      if (current && sameDesiredState(current, desired)) {
        written.set(name, current);
        continue;
      }
      await createOrMergePatch(this.objects, desired as unknown as KubernetesObject);
      this.o.metrics.oscWrites.inc({ namespace, purpose: desired.spec.purpose });
      written.set(name, desired);
      wroteAny = true;
    }

    // 3. wait for the OS extension
    const reconciled = new Map<string, OperatingSystemConfig>();
    const waitingFor: string[] = [];
    // the list read above is still current unless we just wrote
    const refreshed = wroteAny
      ? new Map((await this.listOscs(namespace)).map((osc) => [osc.metadata.name, osc] as const))
      : liveOscs;
    for (const [name, osc] of written) {
      const readiness = oscReadiness(osc, refreshed.get(name));
      if (readiness.ready) reconciled.set(name, refreshed.get(name) as OperatingSystemConfig);
      else {
        waitingFor.push(`${name}: ${readiness.reason}`);
        if (!readiness.retriable)
          this.event(live, 'Warning', 'OperatingSystemConfigError', `${name}: ${readiness.reason}`);
      }
    }
    if (waitingFor.length > 0) return this.waitForExtension(live, namespace, waitingFor, ctx.log);
    this.waitingSince.delete(namespace);

    // 4. the shoot objects, rendered from the OSCs as the OS extension left them
    ctx.log.debug('OperatingSystemConfigs ready, rendering the shoot objects');
    const renderings = await this.osExtensionRenderings(reconciled);
    const final = renderNodeConfiguration({
      ...input,
      reconciledOscs: reconciled,
      osExtension: (osc) => {
        const rendering = renderings.get(osc.metadata.name ?? '');
        if (!rendering)
          throw new Error(`no OS extension output for OperatingSystemConfig ${osc.metadata.name}`);
        return rendering;
      },
    });
    const mrs = final.seed.filter(isManagedResource) as unknown as ManagedResource[];
    const mrSecrets = final.seed.filter(isManagedResourceSecret) as unknown as V1Secret[];
    if (this.o.config.applyMode === 'direct') {
      if (!this.o.applier) throw new Error('applyMode direct needs a shoot applier');
      const shoot = await this.o.shootKubeConfig(namespace);
      ctx.log.debug('Applying the shoot objects directly');
      await this.o.applier.applySets(shoot, final.seed as KubernetesObject[], ctx.log);
    } else await this.applyManagedResources(namespace, mrs, mrSecrets);

    // 5. stale OSCs (removed pools, renamed keys)
    const wanted = new Set(desiredOscs.map((o) => o.metadata.name));
    for (const osc of refreshed.values())
      if (!wanted.has(osc.metadata.name)) await this.deleteOsc(osc, ctx.log);

    // 6. node status
    ctx.log.debug('Shoot objects written, reading node status');
    await this.reportNodes(live, namespace, cluster, ctx.log);
    this.o.metrics.pools.set(
      { namespace },
      cluster.shoot.spec.provider.workers.filter((w) => w.machine.image).length,
    );
    return { requeueAfterMs: this.o.config.controllers.operatingSystemConfig.syncPeriod };
  }

  private async migrationState(namespace: string, gate: boolean) {
    let state = await readMigrationState(this.core, namespace);
    const legacyExists = state
      ? false
      : await this.objects
          .read({
            apiVersion: MANAGED_RESOURCE_API_VERSION,
            kind: MANAGED_RESOURCE_KIND,
            metadata: { name: NAME.managedResourceLegacy, namespace },
          })
          .then(
            () => true,
            (e) => {
              if (isApiStatus(e, 404)) return false;
              throw e;
            },
          );
    const next = nextPhaseOnReconcile(gate, state, legacyExists);
    if (next) {
      state = {
        phase: next,
        since: formatRfc3339(new Date(this.clock.now())),
        reason:
          next === 'Completed'
            ? 'no legacy nodes: the shoot never ran cloud-config-downloader under this controller-manager'
            : undefined,
      };
      await writeMigrationState(this.core, namespace, state);
    }
    return state;
  }

  private waitForExtension(
    live: KubernetesObject & ClusterMeta,
    namespace: string,
    waitingFor: string[],
    log: Logger,
  ): ReconcileResult {
    const since = this.waitingSince.get(namespace) ?? this.clock.now();
    this.waitingSince.set(namespace, since);
    const timeout = this.o.config.controllers.operatingSystemConfig.waitTimeout;
    log.info({ waitingFor }, 'Waiting for the OS extension');
    if (this.clock.now() - since >= timeout) {
      this.o.metrics.waitTimeouts.inc({ namespace });
      this.event(
        live,
        'Warning',
        'OperatingSystemConfigNotReady',
        `OperatingSystemConfigs not ready after ${Math.round(timeout / 1000)}s: ${waitingFor.join('; ')}`,
      );
      this.waitingSince.set(namespace, this.clock.now());
    }
    return { requeueAfterMs: WAIT_INTERVAL_MS };
  }

  /** What the OS extension produced for each reconcile OSC (the legacy executor carries it). */
  private async osExtensionRenderings(
    oscs: ReadonlyMap<string, OperatingSystemConfig>,
  ): Promise<Map<string, OsExtensionRendering>> {
    const out = new Map<string, OsExtensionRendering>();
    for (const osc of oscs.values()) {
      if (osc.spec.purpose !== 'reconcile') continue;
      const ref = osc.status?.cloudConfig?.secretRef;
      if (!ref) continue;
      const secret = await this.core.readNamespacedSecret({
        name: ref.name,
        namespace: ref.namespace ?? osc.metadata.namespace ?? '',
      });
      out.set(osc.metadata.name ?? '', {
        cloudConfig: Buffer.from(secret.data?.[DATA_KEY.cloudConfig] ?? '', 'base64').toString('utf8'),
        command: osc.status?.command,
        units: osc.status?.units ?? [],
        files: osc.status?.files ?? [],
      });
    }
    return out;
  }

  private async applyManagedResources(
    namespace: string,
    mrs: readonly ManagedResource[],
    secrets: readonly V1Secret[],
  ): Promise<void> {
    for (const secret of secrets) await createIfAbsent(this.objects, secret as KubernetesObject);
    for (const mr of mrs) {
      // secretRefs is a list the API replaces wholesale on a merge patch: exactly what we want
      await createOrMergePatch(this.objects, mr as unknown as KubernetesObject);
      await this.deleteUnreferencedSecrets(
        namespace,
        mr.metadata.name ?? '',
        mr.spec.secretRefs.map((r) => r.name),
      );
    }
  }

  private async deleteUnreferencedSecrets(namespace: string, mrName: string, referenced: readonly string[]) {
    const keep = new Set(referenced);
    const list = await this.core.listNamespacedSecret({
      namespace,
      labelSelector: `${LABEL.managedResource}=${mrName}`,
    });
    for (const s of list.items)
      if (!keep.has(s.metadata?.name ?? ''))
        await deleteIfPresent(this.objects, { apiVersion: 'v1', kind: 'Secret', metadata: s.metadata ?? {} });
  }

  private async listOscs(namespace: string): Promise<OperatingSystemConfig[]> {
    const list = await this.objects.list<KubernetesObject>(OSC_API_VERSION, OSC_KIND, namespace);
    return list.items as unknown as OperatingSystemConfig[];
  }

  /** Gardener's extension objects refuse deletion without the confirmation annotation. */
  private async deleteOsc(osc: OperatingSystemConfig, log: Logger): Promise<void> {
    const header = {
      apiVersion: OSC_API_VERSION,
      kind: OSC_KIND,
      metadata: { name: osc.metadata.name, namespace: osc.metadata.namespace },
    };
    try {
      await this.objects.patch(
        {
          ...header,
          metadata: {
            ...header.metadata,
            annotations: {
              [ANNOTATION.confirmDeletion]: 'true',
              [ANNOTATION.timestamp]: formatRfc3339Nano(new Date(this.clock.now())),
            },
          },
        },
        undefined,
        undefined,
        FIELD_MANAGER,
        undefined,
        PatchStrategy.MergePatch,
      );
    } catch (e) {
      if (isApiStatus(e, 404)) return;
      throw e;
    }
    if (await deleteIfPresent(this.objects, header))
      log.info({ osc: osc.metadata.name }, 'Deleted stale OperatingSystemConfig');
  }

  private async reportNodes(
    live: KubernetesObject & ClusterMeta,
    namespace: string,
    cluster: Cluster,
    log: Logger,
  ) {
    let shoot: KubeConfig;
    try {
      shoot = await this.o.shootKubeConfig(namespace);
    } catch (e) {
      log.info({ err: e }, 'Shoot not reachable, node status unknown');
      return;
    }
    try {
      const gate = this.o.config.featureGates[FEATURE_GATE_USE_GARDENER_NODE_AGENT];
      const role = gate ? LABEL_VALUE.roleOperatingSystemConfig : LABEL_VALUE.roleCloudConfig;
      const { pools, secretsByPool, nodesByPool } = await readShootNodeState(shoot, cluster, role);
      const problems = nodesNotUpdated(pools, secretsByPool, nodesByPool);
      const outdated = problems.filter((p) => p.includes('on node "')).length;
      const total = pools.reduce((sum, p) => sum + (nodesByPool.get(p)?.length ?? 0), 0);
      this.o.metrics.nodesOutdated.set({ namespace }, outdated);
      this.o.metrics.nodesUpToDate.set({ namespace }, Math.max(0, total - outdated));
      const status = problems.length === 0 ? 'updated' : problems.join('; ');
      if (this.lastNodeStatus.get(namespace) !== status) {
        this.lastNodeStatus.set(namespace, status);
        if (problems.length === 0)
          this.event(
            live,
            'Normal',
            'NodesUpdated',
            `All ${total} nodes run their worker pool's current operating system config`,
          );
        else this.event(live, 'Normal', 'NodesOutdated', problems.slice(0, 10).join('\n'));
      }
    } catch (e) {
      log.info({ err: e }, 'Cannot read the shoot nodes');
    }
  }

  /** Everything we created for the shoot; returns how many OSCs still wait for their extension. */
  private async cleanUp(namespace: string, log: Logger): Promise<number> {
    const oscs = await this.listOscs(namespace);
    for (const osc of oscs) if (!osc.metadata.deletionTimestamp) await this.deleteOsc(osc, log);
    if (this.o.config.applyMode === 'direct' && this.o.applier) {
      try {
        const shoot = await this.o.shootKubeConfig(namespace);
        for (const set of MANAGED_RESOURCES) await this.o.applier.remove(shoot, set, log);
      } catch (e) {
        log.info(
          { err: e },
          'Shoot not reachable: its objects stay (the shoot is being deleted with its Cluster)',
        );
      }
    }
    for (const mr of MANAGED_RESOURCES) {
      await deleteIfPresent(this.objects, {
        apiVersion: MANAGED_RESOURCE_API_VERSION,
        kind: MANAGED_RESOURCE_KIND,
        metadata: { name: mr, namespace },
      });
      await this.deleteUnreferencedSecrets(namespace, mr, []);
    }
    for (const { name } of [NODE_AGENT_ACCESS, DOWNLOADER_ACCESS, VALITAIL_ACCESS])
      await deleteIfPresent(this.objects, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `${NAME.shootAccessPrefix}${name}`, namespace },
      });
    await deleteMigrationState(this.core, namespace);
    const remaining = (await this.listOscs(namespace)).length;
    if (remaining === 0) log.info('Removed the node configuration of the deleted Cluster');
    return remaining;
  }

  private async setFinalizer(live: KubernetesObject & ClusterMeta, present: boolean): Promise<void> {
    const others = (live.metadata?.finalizers ?? []).filter((f) => f !== CLUSTER_FINALIZER);
    await this.objects.patch(
      {
        apiVersion: CLUSTER_API_VERSION,
        kind: CLUSTER_KIND,
        metadata: {
          name: live.metadata?.name,
          // optimistic locking: another party may be changing the finalizers at the same time
          resourceVersion: live.metadata?.resourceVersion,
          finalizers: present ? [...others, CLUSTER_FINALIZER] : others,
        },
      },
      undefined,
      undefined,
      FIELD_MANAGER,
      undefined,
      PatchStrategy.MergePatch,
    );
  }

  private forget(namespace: string) {
    this.waitingSince.delete(namespace);
    this.lastNodeStatus.delete(namespace);
    for (const g of [this.o.metrics.pools, this.o.metrics.nodesOutdated, this.o.metrics.nodesUpToDate])
      g.remove({ namespace });
  }

  private event(
    live: KubernetesObject & ClusterMeta,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ) {
    void this.o.recorder.event(
      clusterEventObject(live.metadata?.name ?? '', live.metadata?.uid),
      type,
      reason,
      message,
    );
  }
}

type Rendered = { kind: string; metadata: { name?: string } };
const isOsc = (o: Rendered) => o.kind === OSC_KIND;
const isManagedResource = (o: Rendered) => o.kind === MANAGED_RESOURCE_KIND;
const isShootAccessSecret = (o: Rendered) =>
  o.kind === 'Secret' && (o.metadata.name ?? '').startsWith(NAME.shootAccessPrefix);
const isManagedResourceSecret = (o: Rendered) =>
  o.kind === 'Secret' && (o.metadata.name ?? '').startsWith(NAME.managedResourceSecretPrefix);
