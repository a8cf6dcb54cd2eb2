/**
 * The OSC controller's decisions (gardener v1.91.4
 * pkg/nodeagent/controller/operatingsystemconfig/reconciler.go): read the OSC secret, skip when the
 * Node already reports its checksum (a missing checksum never counts as equal), hold while the seed
 * permits another checksum on this Node (apply-gate.ts; without a permission annotation nothing
 * changes), apply through the crash-safe applier, restart the agent itself when its unit changed,
 * then, once the Node exists, remove the kubelet bootstrap credentials, record an event and stamp
 * the Node with the checksum and the Kubernetes version label. Every apply is reported on the Node
 * (apply-report.ts): Failed with why when it throws, else Verifying, and after the settle time
 * Succeeded or Failed (verify-apply.ts), or, with `revertFailedApplies`, Failed after going back to
 * the OSC the node ran before (revert-apply.ts).
 */

import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { V1Node, V1Secret } from '@kubernetes/client-node';
import {
  ANNOTATION,
  APPLY_REASON,
  type OperatingSystemConfig,
  PATH,
  readApplyReport,
  readOscSecret,
  readPermission,
} from '../../../api/index.js';
import { type Clock, realClock } from '../../../runtime/clock.js';
import {
  type ReconcileContext,
  type ReconcileResult,
  ReconcileTimeoutError,
} from '../../../runtime/controller.js';
import type { EventSink } from '../../../runtime/events.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';
import type { ApplyBarrier } from '../../applier/apply-barrier.js';
import { applyOsc } from '../../applier/apply-osc.js';
import { HostRoot } from '../../applier/host-root.js';
import { readLastAppliedText } from '../../applier/last-applied.js';
import { clearReverted, readReverted } from '../../applier/reverted.js';
import type { ContainerdTool } from '../../containerd/containerd-tool.js';
import { InPlaceUpdateUnsupportedError, inPlaceFailurePatch } from '../../inplace/in-place-refusal.js';
import { computePlan } from '../../planner/compute-plan.js';
import type { DisruptionPolicy } from '../../planner/disruption-policy.js';
import { actionsText } from '../../planner/restarts-avoided.js';
import type { ImageExtractor } from '../../registry/image-extractor.js';
import type { Systemd } from '../../systemd/systemd.js';
import { type AgentMetrics, observeOscApply } from '../agent-metrics.js';
import { gateDecision } from './apply-gate.js';
import { failureMessage, failureReason, type ReportContent, writeReport } from './apply-report.js';
import type { InEffectCheck } from './in-effect/in-effect-check.js';
import type { UnitReason } from './in-effect/unit-journal-reason.js';
import { kubeNodeDrain } from './kube-node-drain.js';
import { roleAndZoneLabels, ZONE_FILE } from './node-labels.js';
import { revertApply } from './revert-apply.js';
import { isSerialReconciliation, SerialLease } from './serial-lease.js';
import { restartedUnits, type Verdict, type VerifyProbe, verifyApply } from './verify-apply.js';

export interface OscReconcilerOptions {
  readonly secretName: string;
  readonly kubernetesVersion: string;
  readonly syncPeriodMs: number;
  readonly root: string;
  readonly client: KubeClient;
  readonly systemd: Systemd;
  readonly images: ImageExtractor;
  readonly recorder: EventSink;
  /** The secret as the informer sees it. */
  readonly secret: () => V1Secret | undefined;
  /** This node, once registered. */
  readonly node: () => V1Node | undefined;
  /** Ends the process so systemd starts the new agent (its unit or binary changed). */
  readonly restartSelf: () => void;
  readonly agentMetrics?: AgentMetrics;
  /** Holds the apply at its crash points, for tests under a real systemd (apply-barrier.ts). */
  readonly applyBarrier?: ApplyBarrier;
  /** How long after an apply the restarted units and health checks are judged (default 10 s). */
  readonly settleMs?: number;
  /** The health checks judged after the settle time (kubelet, containerd where the agent checks them). */
  readonly verifyProbes?: readonly VerifyProbe[];
  /** What runs against what the OSC renders (kubelet configz, sysctls), judged after the probes. */
  readonly inEffectChecks?: readonly InEffectCheck[];
  /** A failed unit's last error (its journal), added to the report. */
  readonly unitReason?: UnitReason;
  /** Go back to the previous OSC when an apply fails its verification (revert-apply.ts). */
  readonly revertFailedApplies?: boolean;
  /** Least disruption (docs/least-disruption.md); absent: every changed unit restarts, as upstream. */
  readonly disruptionPolicy?: DisruptionPolicy;
  readonly clock?: Clock;
  /** The node's lower-cased hostname (`files[].hostName`); default: this machine's. */
  readonly hostName?: string;
  /** The containerd a v1.150.0 OSC configures. */
  readonly containerd?: ContainerdTool;
  /** v1.150.0: the Node gets its role and zone labels on every reconcile (node-labels.ts). */
  readonly nodeRoleAndZoneLabels?: boolean;
  /**
   * Told when an apply has finished, before it is judged: the drift monitor then checks against
   * the OSC just applied and watches what it manages (on a first apply nothing was applied before).
   */
  readonly onApplied?: () => void;
}

export const NODE_NOT_REGISTERED_REQUEUE_MS = 5_000;
export const DEFAULT_APPLY_SETTLE_MS = 10_000;

export class OscReconciler {
  private lastHold: string | undefined;

  constructor(private readonly o: OscReconcilerOptions) {}

  async reconcile(_key: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const secret = this.o.secret();
    if (!secret) return undefined;
    const checksum = secret.metadata?.annotations?.[ANNOTATION.checksumDataScript];
    const node = this.o.node();
    const annotations = node?.metadata?.annotations;
    const upToDate =
      node !== undefined &&
      checksum !== undefined &&
      annotations?.[ANNOTATION.checksumCloudConfigData] === checksum;
    const host = new HostRoot(this.o.root);
    const serial = new SerialLease(
      this.o.client,
      secret,
      this.o.hostName ?? hostname().toLowerCase(),
      this.o.clock ?? realClock,
    );
    if (!upToDate) {
      const reverted = this.o.revertFailedApplies ? await readReverted(host) : undefined;
      const gate =
        reverted !== undefined && reverted === checksum
          ? {
              kind: 'hold' as const,
              reason: 'the node went back from this configuration after it failed; waiting for another one',
            }
          : gateDecision(readPermission(annotations), checksum);
      if (gate.kind === 'hold') {
        if (this.lastHold !== gate.reason)
          ctx.log.info(
            { reason: gate.reason },
            'Holding the new operating system config until the seed permits it',
          );
        this.lastHold = gate.reason;
        return undefined;
      }
    }
    this.lastHold = undefined;
    let content: ReturnType<typeof readOscSecret>;
    try {
      content = readOscSecret(secret as Parameters<typeof readOscSecret>[0]);
    } catch (e) {
      if (!upToDate) await this.reportFailure(node, checksum, e, ctx);
      throw e;
    }
    if (this.o.nodeRoleAndZoneLabels && node?.metadata?.name) {
      const labels = await roleAndZoneLabels(node, content.osc, host.path(ZONE_FILE));
      if (labels) {
        ctx.log.info({ labels }, 'Setting node labels on Node object');
        await this.o.client.mergePatch(RESOURCE.node, { name: node.metadata.name }, { metadata: { labels } });
      }
    }
    if (upToDate) {
      ctx.log.debug('Configuration on this node is up to date, nothing to be done');
      await this.resumeVerification(node, checksum, content.osc, ctx);
      await serial.release();
      return undefined;
    }
    if (isSerialReconciliation(secret)) {
      await serial.reload();
      if (serial.heldByAnother() && serial.renewedInTime()) {
        const requeueAfterMs = serial.msUntilExpiry();
        ctx.log.info({ requeueAfterMs }, 'Lease was acquired by another instance, requeuing when it expires');
        return { requeueAfterMs };
      }
      await serial.acquireOrRenew();
      ctx.log.info('Lease acquired, starting reconciliation');
    }
    const previousText = this.o.revertFailedApplies ? await readLastAppliedText(host) : undefined;
    let result: Awaited<ReturnType<typeof applyOsc>>;
    try {
      result = await observeOscApply(this.o.agentMetrics, () =>
        applyOsc({
          root: this.o.root,
          oscText: content.raw,
          osc: content.osc,
          systemd: this.o.systemd,
          images: this.o.images,
          logger: ctx.log,
          onNodeAgentRestart: 'exit',
          // a timed-out or stopping reconcile ends at the next step, not minutes later
          signal: ctx.signal,
          barrier: this.o.applyBarrier,
          disruptionPolicy: this.o.disruptionPolicy,
          ...(node?.metadata?.name ? { drain: kubeNodeDrain(this.o.client, node.metadata.name) } : {}),
          hostName: this.o.hostName,
          containerd: this.o.containerd,
        }),
      );
    } catch (e) {
      await this.reportFailure(node, checksum, e, ctx);
      throw e;
    }
    ctx.log.info(
      { outcome: result.outcome, steps: result.stepsRun },
      'Successfully applied operating system config',
    );
    if (result.outcome === 'exit-for-node-agent-restart') {
      ctx.log.info('The node agent unit changed, restarting the node agent');
      this.o.restartSelf();
      return undefined;
    }
    this.o.onApplied?.();
    if (!node?.metadata?.name) {
      ctx.log.info('Waiting for Node to get registered by kubelet, requeuing');
      return { requeueAfterMs: NODE_NOT_REGISTERED_REQUEUE_MS };
    }
    for (const path of [PATH.kubeletBootstrapKubeconfig, PATH.nodeAgentBootstrapToken]) {
      await rm(host.path(path), { force: true });
    }
    void this.o.recorder.event(
      { apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata.uid },
      'Normal',
      'OSCApplied',
      'Operating system config has been applied successfully',
      'Reconcile',
    );
    const units = await restartedUnits(result.plan, this.o.root);
    const actions = result.plan.disruption ? `; actions: ${actionsText(result.plan.disruption)}` : '';
    await this.report(node.metadata.name, checksum, verifying(units, actions), {
      checksum: checksum ?? null,
      kubernetesVersion: this.o.kubernetesVersion,
    });
    const verdict = await this.verify(units, ctx, content.osc);
    if (!verdict.ok && checksum !== undefined && previousText !== undefined && previousText !== content.raw) {
      const back = await revertApply({
        root: this.o.root,
        failed: checksum,
        verdict,
        previousText,
        systemd: this.o.systemd,
        images: this.o.images,
        hostName: this.o.hostName,
        containerd: this.o.containerd,
        verify: (restarted) => this.verify(restarted, ctx),
        signal: ctx.signal,
        log: ctx.log,
      });
      await this.report(
        node.metadata.name,
        checksum,
        { result: 'Failed', reason: back.reason, message: back.message },
        { checksum: back.running, kubernetesVersion: this.o.kubernetesVersion },
      );
      if (back.restartSelf) this.o.restartSelf();
      await serial.release();
      return undefined;
    }
    // forgotten before the report says Succeeded: whoever reads the report sees the node's state
    if (verdict.ok && this.o.revertFailedApplies) await clearReverted(host);
    await this.reportVerdict(node.metadata.name, checksum, verdict, actions);
    await serial.release();
    return { requeueAfterMs: this.o.syncPeriodMs };
  }

  /** An agent stopped while it verified left `Verifying` behind: it judges the OSC's units again. */
  private async resumeVerification(
    node: V1Node,
    checksum: string | undefined,
    osc: OperatingSystemConfig,
    ctx: ReconcileContext,
  ): Promise<void> {
    const report = readApplyReport(node.metadata?.annotations);
    if (!node.metadata?.name || !report || report.checksum !== checksum || report.result !== 'Verifying')
      return;
    const units = await restartedUnits(computePlan(undefined, osc), this.o.root);
    ctx.log.info({ units: units.length }, 'Verifying the applied operating system config again');
    await this.reportVerdict(node.metadata.name, checksum, await this.verify(units, ctx, osc));
  }

  /** Judges the apply; with `osc`, also whether it is in effect (not for the OSC a revert went back to). */
  private async verify(
    units: readonly string[],
    ctx: ReconcileContext,
    osc?: OperatingSystemConfig,
  ): Promise<Verdict> {
    const checks = this.o.inEffectChecks ?? [];
    const verdict = await verifyApply({
      units,
      systemd: this.o.systemd,
      probes: this.o.verifyProbes ?? [],
      settleMs: this.o.settleMs ?? DEFAULT_APPLY_SETTLE_MS,
      signal: ctx.signal,
      clock: this.o.clock,
      ...(osc && checks.length > 0 ? { inEffect: { osc, checks } } : {}),
      unitReason: this.o.unitReason,
    });
    if (verdict.ok)
      ctx.log.info({ message: verdict.message }, 'Verified the applied operating system config');
    else
      ctx.log.error(
        { reason: verdict.reason, message: verdict.message },
        'The applied operating system config failed its verification',
      );
    return verdict;
  }

  private async reportVerdict(
    nodeName: string,
    checksum: string | undefined,
    verdict: Verdict,
    /** `; actions: …` of a least-disruption apply (docs/least-disruption.md), else empty. */
    actions = '',
  ): Promise<void> {
    const message = `${verdict.message}${actions}`;
    await this.report(
      nodeName,
      checksum,
      verdict.ok
        ? { result: 'Succeeded', reason: APPLY_REASON.applied, message }
        : { result: 'Failed', reason: verdict.reason, message },
    );
  }

  /** A failed apply on a registered Node, unless the agent is only stopping. */
  private async reportFailure(
    node: V1Node | undefined,
    checksum: string | undefined,
    error: unknown,
    ctx: ReconcileContext,
  ): Promise<void> {
    const name = node?.metadata?.name;
    if (!name || (ctx.signal.aborted && !(ctx.signal.reason instanceof ReconcileTimeoutError))) return;
    if (error instanceof InPlaceUpdateUnsupportedError) {
      try {
        await this.o.client.mergePatch(RESOURCE.node, { name }, inPlaceFailurePatch(error));
      } catch (e) {
        ctx.log.error({ err: e }, 'Unable to mark the refused in-place update on the Node');
      }
    }
    const next = { result: 'Failed', reason: failureReason(error), message: failureMessage(error) } as const;
    const current = readApplyReport(node.metadata?.annotations);
    // a retry that fails the same way rewrites nothing
    if (
      current &&
      current.checksum === checksum &&
      current.result === next.result &&
      current.reason === next.reason &&
      current.message === next.message
    )
      return;
    try {
      await this.report(name, checksum, next);
    } catch (e) {
      ctx.log.error({ err: e }, 'Unable to report the failed apply on the Node');
    }
  }

  private async report(
    nodeName: string,
    checksum: string | undefined,
    content: Omit<ReportContent, 'checksum'>,
    stamp?: { checksum: string | null; kubernetesVersion: string },
  ): Promise<void> {
    const now = new Date((this.o.clock ?? realClock).now());
    const report = checksum === undefined ? undefined : { checksum, ...content };
    if (report || stamp) await writeReport(this.o.client, nodeName, report, now, stamp);
  }
}

function verifying(units: readonly string[], actions: string): Omit<ReportContent, 'checksum'> {
  return {
    result: 'Verifying',
    reason: APPLY_REASON.applied,
    message: `applied; ${units.length} restarted unit(s) to verify after the settle time${actions}`,
  };
}
