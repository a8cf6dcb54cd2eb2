/**
 * The `UseGardenerNodeAgent` migration of one shoot (gardener v1.91.4
 * pkg/gardenlet/operation/botanist/worker.go), key: the shoot namespace. It observes the recorded
 * phase (read from the seed, never from a cache: the phase gates what the operatingsystemconfig
 * controller renders), whether a legacy ManagedResource exists (only before any phase is recorded),
 * and while Migrating the nodes, OSC secrets and agent Leases from the shoot cache;
 * `decideMigration` decides; the steps run in order. A restarted controller-manager resumes a
 * CleaningUp and never repeats a Completed.
 */

import type { NodeObject, SecretObject } from '../../api/index.js';
import {
  type Cluster,
  DOWNLOADER_ACCESS,
  formatRfc3339,
  LABEL,
  LABEL_VALUE,
  NAME,
  NAMESPACE_KUBE_SYSTEM,
} from '../../api/index.js';
import { type Clock, realClock } from '../../runtime/clock.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import type { WireLease } from '../../runtime/kube/lease.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { Logger } from '../../runtime/logging.js';
import type { ObjectSetApi } from '../../seed/direct-apply/apply.js';
import type { ShootApplier } from '../../seed/direct-apply/shoot-applier.js';
import { clusterEventObject } from '../../seed/manager/context.js';
import { readMigrationState, writeMigrationState } from '../../seed/migration-state/state.js';
import { shootNodeState } from '../../seed/shoot-nodes/shoot-node-state.js';
import { currentPhase, decideMigration, type MigrationStep } from './decide.js';
import type { MigrationMetrics } from './metrics.js';
import { describeProgress, type LeaseInfo, type MigrationProgress, migrationProgress } from './progress.js';

/** What the migration reads of a running shoot: its cached Nodes, OSC secrets and Leases. */
export interface MigrationShoot {
  readonly client: ObjectSetApi & Pick<KubeClient, 'delete'>;
  nodes(): readonly NodeObject[];
  oscSecrets(): readonly SecretObject[];
  /** The agents' Leases; undefined until the cache listed them (watched only while Migrating). */
  leases(): readonly WireLease[] | undefined;
}

export interface MigrationReconcilerOptions {
  /** The seed's API: the recorded phase, the legacy ManagedResource and secrets. */
  readonly seed: Pick<KubeClient, 'getIfExists' | 'create' | 'update' | 'delete' | 'deleteCollection'>;
  /** The decoded Cluster, or undefined when it is not (or no longer) ours. */
  readonly cluster: (namespace: string) => Cluster | undefined;
  readonly useGardenerNodeAgent: boolean;
  /** The running shoot; `watchLeases` says whether its agents' Leases are needed now. */
  readonly shoot: (namespace: string, watchLeases: boolean) => MigrationShoot | undefined;
  /** Direct apply mode: removes the legacy objects from the shoot. */
  readonly applier?: ShootApplier;
  readonly checkIntervalMs: number;
  readonly recorder: EventRecorder;
  readonly metrics: MigrationMetrics;
  readonly clock?: Clock;
}

export class MigrationReconciler {
  private readonly clock: Clock;
  private readonly lastReported = new Map<string, string>();

  constructor(private readonly o: MigrationReconcilerOptions) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(namespace: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const cluster = this.o.cluster(namespace);
    if (!cluster) {
      this.o.shoot(namespace, false);
      return undefined;
    }
    const gate = this.o.useGardenerNodeAgent;
    const state = await readMigrationState(this.o.seed, namespace);
    const legacyResourcesExist =
      gate && !state
        ? (await this.o.seed.getIfExists(RESOURCE.managedResource, {
            name: NAME.managedResourceLegacy,
            namespace,
          })) !== undefined
        : false;
    const migrating = currentPhase(gate, state, legacyResourcesExist) === 'Migrating';
    const shoot = this.o.shoot(namespace, migrating);
    const plan = decideMigration({
      useGardenerNodeAgent: gate,
      state,
      legacyResourcesExist,
      progress: migrating && shoot ? this.progress(shoot, cluster) : undefined,
      now: formatRfc3339(new Date(this.clock.now())),
    });
    for (const step of plan.steps) await this.execute(step, namespace, shoot, ctx.log);
    return plan.checkAgain ? { requeueAfterMs: this.o.checkIntervalMs } : undefined;
  }

  private progress(shoot: MigrationShoot, cluster: Cluster): MigrationProgress | undefined {
    const leases = shoot.leases();
    if (!leases) return undefined;
    const { pools, secretsByPool, nodesByPool } = shootNodeState(
      cluster,
      shoot.nodes(),
      shoot.oscSecrets(),
      LABEL_VALUE.roleOperatingSystemConfig,
    );
    const leaseInfo = new Map<string, LeaseInfo>();
    for (const l of leases) {
      const renew = l.spec?.renewTime;
      leaseInfo.set(l.metadata?.name ?? '', {
        name: l.metadata?.name ?? '',
        renewTime: renew ? new Date(renew).getTime() : undefined,
        leaseDurationSeconds: l.spec?.leaseDurationSeconds,
      });
    }
    return migrationProgress(pools, secretsByPool, nodesByPool, leaseInfo, this.clock.now());
  }

  private async execute(
    step: MigrationStep,
    namespace: string,
    shoot: MigrationShoot | undefined,
    log: Logger,
  ): Promise<void> {
    switch (step.kind) {
      case 'record':
        await writeMigrationState(this.o.seed, namespace, step.state);
        log.info({ phase: step.state.phase }, 'Migration phase recorded');
        return;
      case 'report':
        this.report(namespace, step.progress);
        return;
      case 'clean-up':
        await this.cleanUpLegacy(namespace, shoot, log);
        return;
      case 'completed':
        this.o.metrics.cleanups.inc({ namespace });
        this.lastReported.delete(namespace);
        log.info('Migration to gardener-node-agent completed, legacy resources removed');
        void this.o.recorder.event(
          clusterEventObject(namespace),
          'Normal',
          'MigrationCompleted',
          'Every node runs gardener-node-agent: removed the cloud-config-downloader resources',
        );
        return;
    }
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

  private async cleanUpLegacy(namespace: string, shoot: MigrationShoot | undefined, log: Logger) {
    if (!shoot)
      throw new Error(`the shoot of ${namespace} is not reachable: the legacy cleanup waits for it`);
    if (this.o.applier) await this.o.applier.remove(shoot.client, NAME.managedResourceLegacy, log);
    await this.o.seed.delete(RESOURCE.managedResource, { name: NAME.managedResourceLegacy, namespace });
    await this.o.seed.deleteCollection(RESOURCE.secret, {
      namespace,
      labelSelector: `${LABEL.managedResource}=${NAME.managedResourceLegacy}`,
    });
    await this.o.seed.delete(RESOURCE.secret, {
      name: `${NAME.shootAccessPrefix}${DOWNLOADER_ACCESS.name}`,
      namespace,
    });
    await shoot.client.delete(RESOURCE.secret, { name: NAME.downloader, namespace: NAMESPACE_KUBE_SYSTEM });
  }
}
