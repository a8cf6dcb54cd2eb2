/**
 * The `UseGardenerNodeAgent` migration of one shoot (seed-side §10): while the phase is
 * Migrating, check every node; once all report the agent, move to CleaningUp (persisted first, so
 * the legacy set is never rendered again), delete the legacy ManagedResource with its secrets,
 * the downloader's access secret and the shoot's `kube-system/cloud-config-downloader`, then
 * Completed. A restarted controller-manager resumes a CleaningUp and never repeats a Completed.
 */
import { CoordinationV1Api, CoreV1Api, type KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import {
  type Cluster,
  DOWNLOADER_ACCESS,
  formatRfc3339,
  LABEL,
  LABEL_VALUE,
  MANAGED_RESOURCE_API_VERSION,
  MANAGED_RESOURCE_KIND,
  NAME,
  NAMESPACE_KUBE_SYSTEM,
} from '../../api/index.js';
import { type Clock, realClock } from '../../runtime/clock.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { Logger } from '../../runtime/logging.js';
import type { ShootApplier } from '../../seed/direct-apply/shoot-applier.js';
import { deleteIfPresent } from '../../seed/kube/seed-writes.js';
import { clusterEventObject } from '../../seed/manager/shoot-context.js';
import { readMigrationState, writeMigrationState } from '../../seed/migration-state/state.js';
import { readShootNodeState } from '../../seed/shoot-nodes/shoot-node-state.js';
import type { MigrationMetrics } from './metrics.js';
import { describeProgress, type LeaseInfo, type MigrationProgress, migrationProgress } from './progress.js';

export interface MigrationReconcilerOptions {
  readonly seed: KubeConfig;
  /** The decoded Cluster, or undefined when it is not (or no longer) ours. */
  readonly cluster: (namespace: string) => Cluster | undefined;
  readonly shootKubeConfig: (namespace: string) => Promise<KubeConfig>;
  /** Direct apply mode: removes the legacy objects from the shoot. */
  readonly applier?: ShootApplier;
  readonly checkIntervalMs: number;
  readonly recorder: EventRecorder;
  readonly metrics: MigrationMetrics;
  readonly clock?: Clock;
}

export class MigrationReconciler {
  private readonly core: CoreV1Api;
  private readonly objects: KubernetesObjectApi;
  private readonly clock: Clock;
  private readonly lastReported = new Map<string, string>();

  constructor(private readonly o: MigrationReconcilerOptions) {
    this.core = o.seed.makeApiClient(CoreV1Api);
    this.objects = KubernetesObjectApi.makeApiClient(o.seed);
    this.clock = o.clock ?? realClock;
  }

  async reconcile(namespace: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const cluster = this.o.cluster(namespace);
    if (!cluster) return undefined;
    const state = await readMigrationState(this.core, namespace);
    if (state?.phase === 'Migrating') {
      const progress = await this.progress(namespace, cluster);
      this.report(namespace, progress);
      if (!progress.done) return { requeueAfterMs: this.o.checkIntervalMs };
      await writeMigrationState(this.core, namespace, { phase: 'CleaningUp', since: this.now() });
    } else if (state?.phase !== 'CleaningUp') {
      return undefined;
    }
    await this.cleanUpLegacy(namespace, ctx.log);
    await writeMigrationState(this.core, namespace, { phase: 'Completed', since: this.now() });
    this.o.metrics.cleanups.inc({ namespace });
    ctx.log.info('Migration to gardener-node-agent completed, legacy resources removed');
    void this.o.recorder.event(
      clusterEventObject(namespace),
      'Normal',
      'MigrationCompleted',
      'Every node runs gardener-node-agent: removed the cloud-config-downloader resources',
    );
    return undefined;
  }

  private now(): string {
    return formatRfc3339(new Date(this.clock.now()));
  }

  private async progress(namespace: string, cluster: Cluster): Promise<MigrationProgress> {
    const shoot = await this.o.shootKubeConfig(namespace);
    const [{ pools, secretsByPool, nodesByPool }, leases] = await Promise.all([
      readShootNodeState(shoot, cluster, LABEL_VALUE.roleOperatingSystemConfig),
      shoot.makeApiClient(CoordinationV1Api).listNamespacedLease({ namespace: NAMESPACE_KUBE_SYSTEM }),
    ]);
    const leaseInfo = new Map<string, LeaseInfo>();
    for (const l of leases.items) {
      const renew = l.spec?.renewTime;
      leaseInfo.set(l.metadata?.name ?? '', {
        name: l.metadata?.name ?? '',
        renewTime: renew ? new Date(renew as unknown as string).getTime() : undefined,
        leaseDurationSeconds: l.spec?.leaseDurationSeconds,
      });
    }
    return migrationProgress(pools, secretsByPool, nodesByPool, leaseInfo, this.clock.now());
  }

  private report(namespace: string, progress: MigrationProgress): void {
    for (const p of progress.pools) {
      this.o.metrics.migrated.set({ namespace, pool: p.pool }, p.migrated);
      this.o.metrics.total.set({ namespace, pool: p.pool }, p.total);
    }
    const text = describeProgress(progress);
    if (this.lastReported.get(namespace) === text) return;
    this.lastReported.set(namespace, text);
    void this.o.recorder.event(clusterEventObject(namespace), 'Normal', 'MigrationProgressing', text);
  }

  private async cleanUpLegacy(namespace: string, log: Logger): Promise<void> {
    const shoot = await this.o.shootKubeConfig(namespace);
    if (this.o.applier) await this.o.applier.remove(shoot, NAME.managedResourceLegacy, log);
    await deleteIfPresent(this.objects, {
      apiVersion: MANAGED_RESOURCE_API_VERSION,
      kind: MANAGED_RESOURCE_KIND,
      metadata: { name: NAME.managedResourceLegacy, namespace },
    });
    await this.core.deleteCollectionNamespacedSecret({
      namespace,
      labelSelector: `${LABEL.managedResource}=${NAME.managedResourceLegacy}`,
    });
    await deleteIfPresent(this.objects, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${NAME.shootAccessPrefix}${DOWNLOADER_ACCESS.name}`, namespace },
    });
    try {
      await shoot
        .makeApiClient(CoreV1Api)
        .deleteNamespacedSecret({ name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM });
    } catch (e) {
      if (!isApiStatus(e, 404)) throw e;
    }
  }
}
