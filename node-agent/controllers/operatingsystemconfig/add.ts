/**
 * Wires the OSC controller (node-side §7.1): it watches only its own OSC secret (field selector on
 * the name, so its Role can stay restricted by resourceNames) and its own Node (by name, or by
 * hostname label until it is registered). A new secret is applied at once; a change of `osc.yaml`
 * after this node's reconciliation delay; annotation-only changes not at all. Where the seed gates
 * rollouts (a permission annotation on the Node, docs/rollout.md) the seed times each node: a
 * change of the secret or of the permission is reconciled at once, and the reconcile applies only
 * the permitted checksum. A permission removed brings back the delay, as if the gate never was.
 */
import type { V1Node, V1Secret } from '@kubernetes/client-node';
import {
  LABEL,
  NAMESPACE_KUBE_SYSTEM,
  NANOS_PER_MILLISECOND,
  oscSecretUpdateChangesOsc,
  PERMITTED_CHECKSUM_ANNOTATION,
} from '../../../api/index.js';
import { Controller } from '../../../runtime/controller.js';
import type { EventRecorder } from '../../../runtime/events.js';
import { Informer } from '../../../runtime/kube/informer.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import type { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { type Logger, silentLogger } from '../../../runtime/logging.js';
import type { RuntimeMetrics } from '../../../runtime/metrics.js';
import type { ApplyBarrier } from '../../applier/apply-barrier.js';
import type { ImageExtractor } from '../../registry/image-extractor.js';
import type { Systemd } from '../../systemd/systemd.js';
import type { AgentMetrics } from '../agent-metrics.js';
import { OscReconciler } from './reconciler.js';
import { ReconciliationDelay } from './reconciliation-delay.js';
import type { VerifyProbe } from './verify-apply.js';

export const CONTROLLER_NAME = 'operatingsystemconfig';
const RECONCILE_TIMEOUT_MS = 3 * 60_000;

export interface OscControllerOptions {
  readonly http: KubeHttp;
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
  readonly recorder: EventRecorder;
  readonly restartSelf: () => void;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly agentMetrics?: AgentMetrics;
  readonly applyBarrier?: ApplyBarrier;
  /** How long after an apply the agent judges it (default 10 s). */
  readonly applySettleMs?: number;
  /** The health checks judged after the settle time. */
  readonly verifyProbes?: readonly VerifyProbe[];
  /** Go back to the previous OSC when an apply fails its verification. */
  readonly revertFailedApplies?: boolean;
}

export interface OscController {
  readonly controller: Controller;
  readonly secrets: Informer<V1Secret>;
  readonly nodes: Informer<V1Node>;
  /** Resolves once both caches are filled. */
  synced(): Promise<void>;
}

export function startOscController(o: OscControllerOptions, signal: AbortSignal): OscController {
  const log = o.log ?? silentLogger;
  const secrets = new Informer<V1Secret>({
    http: o.http,
    path: `/api/v1/namespaces/${NAMESPACE_KUBE_SYSTEM}/secrets`,
    fieldSelector: `metadata.name=${o.secretName}`,
    log,
    metrics: o.metrics,
  });
  const nodes = new Informer<V1Node>({
    http: o.http,
    path: '/api/v1/nodes',
    ...(o.nodeName
      ? { fieldSelector: `metadata.name=${o.nodeName}` }
      : { labelSelector: `${LABEL.hostname}=${o.hostName}` }),
    log,
    metrics: o.metrics,
  });
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
    revertFailedApplies: o.revertFailedApplies,
  });
  const controller = new Controller({
    name: CONTROLLER_NAME,
    reconcile: (key, ctx) => reconciler.reconcile(key, ctx),
    timeoutMs: RECONCILE_TIMEOUT_MS,
    log,
    metrics: o.metrics,
  });
  const delay = new ReconciliationDelay();
  const key = `${NAMESPACE_KUBE_SYSTEM}/${o.secretName}`;
  const permission = (n: V1Node | undefined) => n?.metadata?.annotations?.[PERMITTED_CHECKSUM_ANNOTATION];
  const afterDelay = () => {
    const d = delay.compute(node());
    log.info(
      { controller: CONTROLLER_NAME, delayMs: d.nanos / NANOS_PER_MILLISECOND, source: d.source },
      'Enqueued secret with operating system config with a jitter period',
    );
    controller.queue.addAfter(key, d.nanos / NANOS_PER_MILLISECOND);
  };
  secrets.on({
    add: () => controller.queue.add(key),
    update: (previous, next) => {
      if (!oscSecretUpdateChangesOsc(previous, next)) return;
      if (permission(node()) !== undefined) controller.queue.add(key);
      else afterDelay();
    },
  });
  nodes.on({
    update: (previous, next) => {
      if (permission(previous) === permission(next)) return;
      if (permission(next) !== undefined) controller.queue.add(key);
      else afterDelay();
    },
  });
  secrets.start(signal);
  nodes.start(signal);
  // reconcile only with both caches filled: the first apply must see the Node if it exists
  const synced = Promise.all([secrets.waitForSync(signal), nodes.waitForSync(signal)]).then(() =>
    controller.start(signal),
  );
  synced.catch(() => undefined);
  return { controller, secrets, nodes, synced: () => synced };
}
