/**
 * The OSC controller's decisions (node-side §7.3): read the OSC secret, skip when the Node already
 * reports its checksum (a missing checksum never counts as equal), apply through the crash-safe
 * applier, restart the agent itself when its unit changed, then, once the Node exists, remove the
 * kubelet bootstrap credentials, record an event and stamp the Node with the checksum and the
 * Kubernetes version label.
 */
import { rm } from 'node:fs/promises';
import type { V1Node, V1Secret } from '@kubernetes/client-node';
import { ANNOTATION, LABEL, PATH, readOscSecret } from '../../../api/index.js';
import type { ReconcileContext, ReconcileResult } from '../../../runtime/controller.js';
import type { EventRecorder } from '../../../runtime/events.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';
import type { ApplyBarrier } from '../../applier/apply-barrier.js';
import { applyOsc } from '../../applier/apply-osc.js';
import { HostRoot } from '../../applier/host-root.js';
import type { ImageExtractor } from '../../registry/image-extractor.js';
import type { Systemd } from '../../systemd/systemd.js';
import { type AgentMetrics, observeOscApply } from '../agent-metrics.js';

export interface OscReconcilerOptions {
  readonly secretName: string;
  readonly kubernetesVersion: string;
  readonly syncPeriodMs: number;
  readonly root: string;
  readonly client: KubeClient;
  readonly systemd: Systemd;
  readonly images: ImageExtractor;
  readonly recorder: EventRecorder;
  /** The secret as the informer sees it. */
  readonly secret: () => V1Secret | undefined;
  /** This node, once registered. */
  readonly node: () => V1Node | undefined;
  /** Ends the process so systemd starts the new agent (its unit or binary changed). */
  readonly restartSelf: () => void;
  readonly agentMetrics?: AgentMetrics;
  /** Holds the apply at its crash points, for tests under a real systemd (apply-barrier.ts). */
  readonly applyBarrier?: ApplyBarrier;
}

export const NODE_NOT_REGISTERED_REQUEUE_MS = 5_000;

export class OscReconciler {
  constructor(private readonly o: OscReconcilerOptions) {}

  async reconcile(_key: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> {
    const secret = this.o.secret();
    if (!secret) return undefined;
    const { raw, checksum, osc } = readOscSecret(secret as Parameters<typeof readOscSecret>[0]);
    const node = this.o.node();
    if (
      node &&
      checksum !== undefined &&
      node.metadata?.annotations?.[ANNOTATION.checksumCloudConfigData] === checksum
    ) {
      ctx.log.debug('Configuration on this node is up to date, nothing to be done');
      return undefined;
    }
    const result = await observeOscApply(this.o.agentMetrics, () =>
      applyOsc({
        root: this.o.root,
        oscText: raw,
        osc,
        systemd: this.o.systemd,
        images: this.o.images,
        logger: ctx.log,
        onNodeAgentRestart: 'exit',
        // a timed-out or stopping reconcile ends at the next step, not minutes later
        signal: ctx.signal,
        barrier: this.o.applyBarrier,
      }),
    );
    ctx.log.info(
      { outcome: result.outcome, steps: result.stepsRun },
      'Successfully applied operating system config',
    );
    if (result.outcome === 'exit-for-node-agent-restart') {
      ctx.log.info('The node agent unit changed, restarting the node agent');
      this.o.restartSelf();
      return undefined;
    }
    if (!node?.metadata?.name) {
      ctx.log.info('Waiting for Node to get registered by kubelet, requeuing');
      return { requeueAfterMs: NODE_NOT_REGISTERED_REQUEUE_MS };
    }
    for (const path of [PATH.kubeletBootstrapKubeconfig, PATH.nodeAgentBootstrapToken]) {
      await rm(new HostRoot(this.o.root).path(path), { force: true });
    }
    void this.o.recorder.event(
      { apiVersion: 'v1', kind: 'Node', name: node.metadata.name, uid: node.metadata.uid },
      'Normal',
      'OSCApplied',
      'Operating system config has been applied successfully',
    );
    await this.patchNode(node.metadata.name, checksum);
    return { requeueAfterMs: this.o.syncPeriodMs };
  }

  private async patchNode(name: string, checksum: string | undefined): Promise<void> {
    const body = {
      metadata: {
        labels: { [LABEL.kubernetesVersion]: this.o.kubernetesVersion },
        annotations: { [ANNOTATION.checksumCloudConfigData]: checksum ?? null },
      },
    };
    await this.o.client.mergePatch(RESOURCE.node, { name }, body);
  }
}
