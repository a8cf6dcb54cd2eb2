/**
 * Wires the OSC controller (gardener v1.91.4 `pkg/nodeagent/controller/operatingsystemconfig/add.go`): it watches only its own OSC secret (field selector on
 * the name, so its Role can stay restricted by resourceNames) and its own Node (by name, or by
 * hostname label until it is registered). A new secret is applied at once; a change of `osc.yaml`
 * after this node's reconciliation delay; annotation-only changes not at all. Where the seed gates
 * rollouts (a permission annotation on the Node, docs/rollout.md) the seed times each node: a
 * change of the secret or of the permission is reconciled at once, and the reconcile applies only
 * the permitted checksum. A permission removed brings back the delay, as if the gate never was.
 */
import type { V1Node, V1Secret } from '@kubernetes/client-node';
import {
  NAMESPACE_KUBE_SYSTEM,
  NANOS_PER_MILLISECOND,
  oscSecretUpdateChangesOsc,
  PERMITTED_CHECKSUM_ANNOTATION,
} from '../../../api/index.js';
import { newController } from '../../../runtime/controller-builder.js';
import type { EventSink } from '../../../runtime/events.js';
import type { ClusterCache } from '../../../runtime/kube/cluster-cache.js';
import type { Informer } from '../../../runtime/kube/informer.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import type { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { RunningController } from '../../../runtime/running-controller.js';
import type { ApplyBarrier } from '../../applier/apply-barrier.js';
import type { ContainerdTool } from '../../containerd/containerd-tool.js';
import type { DisruptionPolicy } from '../../planner/disruption-policy.js';
import type { ImageExtractor } from '../../registry/image-extractor.js';
import type { Systemd } from '../../systemd/systemd.js';
import { kubeSystemSecret, ownNode, startedCache } from '../agent-informers.js';
import type { AgentMetrics } from '../agent-metrics.js';
import type { InEffectCheck } from './in-effect/in-effect-check.js';
import type { UnitReason } from './in-effect/unit-journal-reason.js';
import { OscReconciler } from './reconciler.js';
import { ReconciliationDelay } from './reconciliation-delay.js';
import type { VerifyProbe } from './verify-apply.js';

export const CONTROLLER_NAME = 'operatingsystemconfig';
const RECONCILE_TIMEOUT_MS = 3 * 60_000;

export interface OscControllerOptions {
  /** Without the agent's shared cache, the secret and Node are watched through a cache of its own over this. */
  readonly http: KubeHttp;
  readonly cache?: ClusterCache;
  readonly client: KubeClient;
  readonly secretName: string;
  /** Known when the Node was found at start-up; else the hostname label finds it once registered. */
  readonly nodeName: string | undefined;
  readonly hostName: string;
  readonly kubernetesVersion: string;
  readonly syncPeriodMs: number;
  readonly root: string;
  readonly systemd: Systemd;
  readonly images: ImageExtractor;
  readonly recorder: EventSink;
  readonly restartSelf: () => void;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly agentMetrics?: AgentMetrics;
  readonly applyBarrier?: ApplyBarrier;
  /** How long after an apply the agent judges it (default 10 s). */
  readonly applySettleMs?: number;
  /** The health checks judged after the settle time. */
  readonly verifyProbes?: readonly VerifyProbe[];
  /** What runs against what was rendered, after the settle time (in-effect/). */
  readonly inEffectChecks?: readonly InEffectCheck[];
  /** A failed unit's last error, for the report. */
  readonly unitReason?: UnitReason;
  /** Go back to the previous OSC when an apply fails its verification. */
  readonly revertFailedApplies?: boolean;
  /**
   * Least disruption (docs/least-disruption.md): unit commands as the decision for this policy
   * picks them. Absent: every changed unit restarts, as upstream.
   */
  readonly disruptionPolicy?: DisruptionPolicy;
  /** The containerd a v1.150.0 OSC configures. */
  readonly containerd?: ContainerdTool;
  /** v1.150.0: the Node's role and zone labels (node-labels.ts). */
  readonly nodeRoleAndZoneLabels?: boolean;
  /** Told when an apply has finished (the drift monitor follows it). */
  readonly onApplied?: () => void;
}

export interface RunningOscController extends RunningController {
  readonly secrets: Informer<V1Secret>;
  readonly nodes: Informer<V1Node>;
}

export function addOscController(o: OscControllerOptions, signal: AbortSignal): RunningOscController {
  const log = o.log ?? silentLogger;
  const cache = o.cache ?? startedCache(o.http, signal, log, o.metrics);
  const secrets = kubeSystemSecret(cache, o.secretName);
  const nodes = ownNode(cache, o.nodeName, o.hostName);
  const node = () => nodes.list()[0];
  const reconciler = new OscReconciler({
    secretName: o.secretName,
    kubernetesVersion: o.kubernetesVersion,
    syncPeriodMs: o.syncPeriodMs,
    root: o.root,
    client: o.client,
    systemd: o.systemd,
    images: o.images,
    recorder: o.recorder,
    secret: () => secrets.get(o.secretName, NAMESPACE_KUBE_SYSTEM),
    node,
    restartSelf: o.restartSelf,
    agentMetrics: o.agentMetrics,
    applyBarrier: o.applyBarrier,
    settleMs: o.applySettleMs,
    verifyProbes: o.verifyProbes,
    inEffectChecks: o.inEffectChecks,
    unitReason: o.unitReason,
    revertFailedApplies: o.revertFailedApplies,
    disruptionPolicy: o.disruptionPolicy,
    hostName: o.hostName,
    containerd: o.containerd,
    nodeRoleAndZoneLabels: o.nodeRoleAndZoneLabels,
    onApplied: o.onApplied,
  });
  const delay = new ReconciliationDelay();
  const key = `${NAMESPACE_KUBE_SYSTEM}/${o.secretName}`;
  const permission = (n: V1Node | undefined) => n?.metadata?.annotations?.[PERMITTED_CHECKSUM_ANNOTATION];
  const permitted = () => permission(node()) !== undefined;
  const afterDelay = () => {
    const d = delay.compute(node());
    log.info(
      { controller: CONTROLLER_NAME, delayMs: d.nanos / NANOS_PER_MILLISECOND, source: d.source },
      'Enqueued secret with operating system config with a jitter period',
    );
    return d.nanos / NANOS_PER_MILLISECOND;
  };
  const permissionChanged = (previous: V1Node, next: V1Node) => permission(previous) !== permission(next);
  const running = newController(CONTROLLER_NAME, { timeoutMs: RECONCILE_TIMEOUT_MS, log, metrics: o.metrics })
    // a new secret at once; a changed OSC at once where the seed times the node, else after the delay
    .watches(secrets, () => key, {
      create: true,
      update: (previous, next) => oscSecretUpdateChangesOsc(previous, next) && permitted(),
    })
    .watches(
      secrets,
      () => key,
      { update: (previous, next) => oscSecretUpdateChangesOsc(previous, next) && !permitted() },
      { delayMs: afterDelay },
    )
    // a permission given is reconciled at once; a permission removed brings back the delay
    .watches(nodes, () => key, {
      update: (previous, next) => permissionChanged(previous, next) && permission(next) !== undefined,
    })
    .watches(
      nodes,
      () => key,
      { update: (previous, next) => permissionChanged(previous, next) && permission(next) === undefined },
      { delayMs: afterDelay },
    )
    // reconcile only with both caches filled: the first apply must see the Node if it exists
    .start(signal, (k, ctx) => reconciler.reconcile(k, ctx));
  return { ...running, secrets, nodes };
}
