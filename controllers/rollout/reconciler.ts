/**
 * The rollout reconciler of one shoot (key: its namespace). It observes the shoot's Nodes, OSC
 * secrets and agent Leases (shoot cache), the Cluster's annotations (seed cache) and the status
 * ConfigMap (read from the seed, never a cache: it is the state), lets `decidePool` decide every
 * pool, and executes: the status first (so a restart finds what was decided), then the Nodes'
 * permissions, events on the Cluster, metrics, and the operator's action annotation removed once
 * acted on. With the gate off it removes every permission it wrote, and its status: the shoot
 * behaves exactly as without the gate.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import {
  type Cluster,
  maxDelayFromShoot,
  nodeAgentLeaseName,
  PERMITTED_CHECKSUM_ANNOTATION,
  ROLLOUT_CLUSTER_ANNOTATION,
  ROLLOUT_FAILURE_ANNOTATION,
  ROLLOUT_STATUS_CONFIGMAP,
} from '../../api/index.js';
import { type Clock, realClock } from '../../runtime/clock.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventObject, EventRecorder } from '../../runtime/events.js';
import { forEachLimited } from '../../runtime/for-each-limited.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import type { KubeClient } from '../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { RolloutSettings } from '../../seed/manager/config.js';
import { decidePool, type RolloutEvent } from './decide.js';
import { type LeaseJudgement, LeaseObserver } from './lease-observer.js';
import { type RolloutMetrics, reportPools } from './metrics.js';
import { type LeaseObject, type NodeObject, observePools, type SecretObject } from './observe.js';
import { actionRequest, effectiveSettings } from './settings.js';
import { decodeRolloutStatus, type PoolRollout, RolloutStatusError } from './state.js';
import { writeRolloutStatus } from './status-configmap.js';

export interface RolloutShoot {
  nodes(): readonly NodeObject[];
  oscSecrets(): readonly SecretObject[];
  /** The agents' Leases, watched from the first call on; undefined until listed (the gate cannot decide). */
  leases(): readonly LeaseObject[] | undefined;
  /** Stops watching the Leases (the gate is off). */
  releaseLeases(): void;
}

export interface RolloutReconcilerOptions {
  readonly namespace: string;
  readonly settings: RolloutSettings;
  readonly cluster: () => Cluster;
  /** The Cluster object's own annotations (settings overrides, the operator's action). */
  readonly clusterAnnotations: () => Readonly<Record<string, string>> | null | undefined;
  readonly shoot: RolloutShoot;
  /** Writes the Nodes' permissions. */
  readonly shootClient: Pick<KubeClient, 'mergePatch'>;
  /** The status ConfigMap and the Cluster's action annotation. */
  readonly seed: Pick<KubeClient, 'getIfExists' | 'create' | 'update' | 'delete' | 'jsonPatch'>;
  readonly recorder: EventRecorder;
  readonly eventObject: EventObject;
  readonly metrics: RolloutMetrics;
  readonly patchConcurrency?: number;
  /** Without a due time, the rollout is looked at again after this long (default 60 s). */
  readonly resyncPeriodMs?: number;
  readonly clock?: Clock;
}

/** JSON pointer of an annotation key. */
const annotationPointer = (key: string) =>
  `/metadata/annotations/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;

export class RolloutReconciler {
  private readonly clock: Clock;
  private readonly warned = new Set<string>();
  private readonly leaseObserver = new LeaseObserver();
  /** When this gate started deciding (since the process started, or the gate was turned on). */
  private gateSince: number | undefined;
  /** Most Leases were stale together at the last decision (announced once per episode). */
  private unobservable = false;
  private pools: readonly string[] = [];
  /** The gate is off and the status is gone: nothing to delete on the next reconcile. */
  private statusRemoved = false;

  constructor(private readonly o: RolloutReconcilerOptions) {
    this.clock = o.clock ?? realClock;
  }

  async reconcile(_key: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const annotations = this.o.clusterAnnotations() ?? undefined;
    const { settings, problems } = effectiveSettings(this.o.settings, annotations);
    for (const p of problems) await this.warnOnce('RolloutSettingRejected', p);
    const request = actionRequest(annotations);
    if (request && 'problem' in request) await this.warnOnce('RolloutActionRejected', request.problem);
    if (!settings.gate) return this.gateOff(ctx);
    this.statusRemoved = false;

    const now = this.clock.now();
    this.gateSince ??= now;
    const current = await this.o.seed.getIfExists<V1ConfigMap>(RESOURCE.configMap, {
      name: ROLLOUT_STATUS_CONFIGMAP,
      namespace: this.o.namespace,
    });
    let status: ReadonlyMap<string, PoolRollout>;
    try {
      status = decodeRolloutStatus(current?.data);
    } catch (e) {
      if (!(e instanceof RolloutStatusError)) throw e;
      // a gate that cannot decide holds: nothing is permitted until the status is readable again
      await this.warnOnce(
        'RolloutStatusUnreadable',
        `the rollout status ConfigMap ${ROLLOUT_STATUS_CONFIGMAP} cannot be read, every rollout holds until it is fixed or deleted: ${e.message}`,
      );
      return { requeueAfterMs: this.o.resyncPeriodMs ?? 60_000 };
    }

    const cluster = this.o.cluster();
    const pools = cluster.shoot.spec.provider.workers.filter((w) => w.machine.image).map((w) => w.name);
    const leases = this.o.shoot.leases();
    const shootNodes = this.o.shoot.nodes();
    const judgement =
      leases &&
      this.leaseObserver.judge(
        shootNodes.map((n) => n.metadata?.name ?? ''),
        leases,
        nodeAgentLeaseName,
        now,
      );
    if (judgement) await this.announceUnobservable(judgement, ctx);
    const observations = observePools(pools, shootNodes, this.o.shoot.oscSecrets(), judgement?.nodes);
    const windowMs = maxDelayFromShoot(cluster.shoot.metadata.annotations).seconds * 1000;
    const action = request && !('problem' in request) ? request : undefined;

    const next = new Map<string, PoolRollout>();
    const patches = new Map<string, Record<string, string | null>>();
    const patch = (node: string) => patches.get(node) ?? patches.set(node, {}).get(node)!;
    const events: RolloutEvent[] = [];
    let recheckAt: number | undefined;
    for (const observation of observations) {
      const forPool = action && (!action.pools || action.pools.includes(observation.pool));
      const decision = decidePool({
        settings,
        now,
        windowMs,
        observation,
        previous: status.get(observation.pool),
        action: forPool ? action.action : undefined,
        gateSince: this.gateSince,
      });
      if (decision.state) next.set(observation.pool, decision.state);
      const d = decision.state;
      ctx.log.debug(
        {
          pool: observation.pool,
          phase: d?.phase,
          wave: d?.wave,
          updated: d?.updated,
          failed: d?.failed,
          pending: d?.pending,
        },
        'Rollout decided',
      );
      for (const [node, value] of decision.permissions) patch(node)[PERMITTED_CHECKSUM_ANNOTATION] = value;
      for (const [node, mark] of decision.marks) {
        patch(node)[ROLLOUT_FAILURE_ANNOTATION.checksum] = mark?.checksum ?? null;
        patch(node)[ROLLOUT_FAILURE_ANNOTATION.reason] = mark?.reason ?? null;
      }
      events.push(...decision.events);
      if (decision.recheckAt !== undefined)
        recheckAt = Math.min(recheckAt ?? decision.recheckAt, decision.recheckAt);
      for (const f of decision.newFailures)
        this.o.metrics.failures.inc({
          namespace: this.o.namespace,
          pool: observation.pool,
          reason: f.reason,
        });
      if (decision.halted) this.o.metrics.halts.inc({ namespace: this.o.namespace, pool: observation.pool });
      for (const st of decision.stalls)
        this.o.metrics.stalls.inc({ namespace: this.o.namespace, pool: observation.pool, action: st.action });
      for (const c of decision.ignored) {
        const message = `pool ${observation.pool}: ignored node ${c.node}'s claim (${c.claim}) about ${c.checksum.slice(0, 12)}: it was permitted ${c.permitted.slice(0, 12)}, and a node speaks for a checksum only once it is permitted it`;
        if (await this.warnOnce('RolloutReportIgnored', message, `${c.time ?? ''}`))
          ctx.log.warn({ node: c.node, claim: c.claim }, message);
      }
    }

    const written = await writeRolloutStatus(this.o.seed, this.o.namespace, current, next);
    if (!written) {
      ctx.log.debug('The rollout status changed meanwhile, deciding again');
      return { requeueAfterMs: 100 };
    }
    for (const e of events)
      (e.type === 'Warning' ? ctx.log.warn : ctx.log.info).call(ctx.log, { reason: e.reason }, e.message);
    try {
      await this.writePermissions(
        [...patches].map(([node, annotations]) => ({ node, annotations })),
        ctx,
      );
    } finally {
      // the transitions are in the status: announce them even when a permission patch failed
      await this.announce(written, next, ctx);
    }
    this.report(next);
    if (action) await this.removeAction(action.text, ctx);
    const resync = now + (this.o.resyncPeriodMs ?? 60_000);
    return { requeueAfterMs: Math.max(100, Math.min(recheckAt ?? resync, resync) - now) };
  }

  /**
   * Most of the shoot's Leases went stale together: the seed cannot see the agents (the shoot's API
   * server, the authorizer or the watch is down), which is no node's failure. Said once when it
   * starts, logged when it ends.
   */
  private async announceUnobservable(j: LeaseJudgement, ctx: ReconcileContext): Promise<void> {
    if (j.unobservable === this.unobservable) return;
    this.unobservable = j.unobservable;
    if (!j.unobservable) {
      ctx.log.info({ stale: j.stale, total: j.total }, 'The agent Leases are renewed again: judging them');
      return;
    }
    const message = `${j.stale} of ${j.total} agent Leases of the shoot went stale together: the seed cannot see the agents (the shoot's API server, the node agent authorizer or the watch may be down), so no node is judged by its Lease until most renew again; rollouts wait`;
    ctx.log.warn({ stale: j.stale, total: j.total }, message);
    await this.o.recorder.event(this.o.eventObject, 'Warning', 'RolloutLeasesUnobservable', message);
  }

  /**
   * The gate is off: every permission goes, and the status; agents apply after their delays. The
   * failure marks stay (the agents ignore them), so turning the gate on again finds the halt;
   * `handOver` (the shoot is no longer ours) removes them too.
   */
  private async gateOff(ctx: ReconcileContext, handOver = false): Promise<ReconcileResult | undefined> {
    this.o.shoot.releaseLeases();
    this.leaseObserver.reset();
    this.unobservable = false;
    this.gateSince = undefined;
    const ours = [
      PERMITTED_CHECKSUM_ANNOTATION,
      ...(handOver ? Object.values(ROLLOUT_FAILURE_ANNOTATION) : []),
    ];
    const permitted = this.o.shoot
      .nodes()
      .filter((n) => ours.some((a) => n.metadata?.annotations?.[a] !== undefined))
      .map((n) => ({
        node: n.metadata?.name ?? '',
        annotations: Object.fromEntries(ours.map((a) => [a, null])),
      }));
    await this.writePermissions(permitted, ctx);
    const deleted =
      !this.statusRemoved &&
      (await this.o.seed.delete(RESOURCE.configMap, {
        name: ROLLOUT_STATUS_CONFIGMAP,
        namespace: this.o.namespace,
      }));
    this.statusRemoved = true;
    if (deleted || permitted.length > 0)
      ctx.log.info(
        { permissionsRemoved: permitted.length },
        'The rollout gate is off: permissions and status removed',
      );
    this.report(new Map());
    return undefined;
  }

  /**
   * Writes every pending announcement of the status as an event; those written leave the status
   * (a second write, with the resourceVersion of the first). What could not be written, or a
   * conflict, leaves them pending for the next reconcile: announced at least once.
   */
  private async announce(
    written: V1ConfigMap,
    status: ReadonlyMap<string, PoolRollout>,
    ctx: ReconcileContext,
  ): Promise<void> {
    const left = new Map<string, PoolRollout>();
    let delivered = 0;
    for (const [pool, s] of status) {
      const pending = [];
      for (const a of s.announce ?? []) {
        if (await this.o.recorder.tryEvent(this.o.eventObject, a.type, a.reason, a.message)) delivered++;
        else pending.push(a);
      }
      const { announce: _announced, ...rest } = s;
      left.set(pool, pending.length > 0 ? { ...rest, announce: pending } : rest);
    }
    if (delivered === 0) return;
    try {
      if (!(await writeRolloutStatus(this.o.seed, this.o.namespace, written, left)))
        ctx.log.debug('The rollout status changed meanwhile: its announcements are made again');
    } catch (e) {
      ctx.log.debug({ err: e }, 'The announced transitions stay pending in the rollout status');
    }
  }

  /** One merge patch per Node: its permission and failure marks (null removes one). */
  private async writePermissions(
    patches: readonly { node: string; annotations: Record<string, string | null> }[],
    ctx: ReconcileContext,
  ): Promise<void> {
    const namespace = this.o.namespace;
    await forEachLimited(patches, this.o.patchConcurrency ?? 8, async ({ node, annotations }) => {
      if (ctx.signal.aborted) return;
      try {
        await this.o.shootClient.mergePatch(RESOURCE.node, { name: node }, { metadata: { annotations } });
        this.o.metrics.permissionPatches.inc({ namespace, result: 'patched' });
        ctx.log.debug({ node, annotations }, 'Node permission written');
      } catch (e) {
        if (isApiStatus(e, 404)) {
          this.o.metrics.permissionPatches.inc({ namespace, result: 'gone' });
          return;
        }
        this.o.metrics.permissionPatches.inc({ namespace, result: 'error' });
        throw e;
      }
    });
  }

  /** Removes the action annotation if it still says what was acted on. */
  private async removeAction(text: string, ctx: ReconcileContext): Promise<void> {
    const path = annotationPointer(ROLLOUT_CLUSTER_ANNOTATION.action);
    try {
      await this.o.seed.jsonPatch(RESOURCE.cluster, { name: this.o.namespace }, [
        { op: 'test', path, value: text },
        { op: 'remove', path },
      ]);
    } catch (e) {
      // changed or removed meanwhile: the next reconcile sees what it says now
      if (!isApiStatus(e, 422) && !isApiStatus(e, 404)) throw e;
      ctx.log.debug({ err: e }, 'The rollout action annotation changed before it could be removed');
    }
  }

  private report(status: ReadonlyMap<string, PoolRollout>): void {
    this.pools = reportPools(this.o.metrics, this.o.namespace, this.pools, status);
  }

  /**
   * The shoot is no longer ours (its Cluster deselected or gone): the permissions go, so its agents
   * apply as upstream's do for whoever owns the shoot now, and so does the status.
   */
  async release(ctx: ReconcileContext): Promise<void> {
    await this.gateOff(ctx, true);
  }

  /** Removes this shoot's metrics (the shoot stops). */
  forget(): void {
    this.report(new Map());
  }

  /** `instance` tells apart claims that read alike (a report written again later). */
  private async warnOnce(reason: string, message: string, instance = ''): Promise<boolean> {
    const key = `${reason}\n${message}\n${instance}`;
    if (this.warned.has(key)) return false;
    this.warned.add(key);
    await this.o.recorder.event(this.o.eventObject, 'Warning', reason, message);
    return true;
  }
}
