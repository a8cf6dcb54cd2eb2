/**
 * The kubelet checker (gardener v1.91.4 pkg/nodeagent/controller/healthcheck/kubelet.go), in
 * upstream's order per round: count NotReady→Ready flapping, restore a lost InternalIP, then probe
 * /healthz and restart the kubelet once it has failed for a minute. Flapping is only reported: the
 * reboot upstream v1.91 did here was removed in v1.128 (false positives when the control plane is
 * overloaded), and this agent never reboots.
 */
import type { V1Node } from '@kubernetes/client-node';
import { formatGoDuration } from '../../../api/index.js';
import { type CheckerDeps, type HealthChecker, nodeEvent } from './checker.js';
import { InternalIpRecovery, type NodeStatusWriter } from './internal-ip.js';
import type { KubeletProbe } from './kubelet-healthz.js';
import { ReadyToggles } from './ready-toggles.js';
import { RestartOnSustainedFailure } from './restart-on-sustained-failure.js';

export const KUBELET_SERVICE = 'kubelet.service';

export interface KubeletCheckerOptions extends CheckerDeps {
  readonly probe: KubeletProbe;
  /** Without it, a lost InternalIP is not restored. */
  readonly writeStatus?: NodeStatusWriter;
  readonly hostAddresses?: () => string[];
  readonly maxFailureDurationMs?: number;
}

function isReady(node: V1Node): boolean {
  return node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
}

export class KubeletHealthChecker implements HealthChecker {
  readonly name = 'kubelet';
  readonly toggles: ReadyToggles;
  // starts NotReady, so the first Ready seen counts as a toggle (as upstream)
  private ready = false;
  private readonly restarter: RestartOnSustainedFailure;
  private readonly internalIp: InternalIpRecovery | undefined;

  constructor(private readonly o: KubeletCheckerOptions) {
    this.toggles = new ReadyToggles(o.clock);
    this.restarter = new RestartOnSustainedFailure(
      this.name,
      KUBELET_SERVICE,
      {
        first: (error) => `Kubelet is unhealthy, health check error: ${error}`,
        restarting: (max, error) =>
          `Kubelet is unhealthy for more than ${max}, restarting it. Health check error: ${error}`,
        healthy: 'Kubelet is healthy',
        restartFailed: (e) => e,
      },
      o,
      o.maxFailureDurationMs,
    );
    this.internalIp = o.writeStatus
      ? new InternalIpRecovery({
          ...o,
          writeStatus: o.writeStatus,
          restartKubelet: async () => {
            await o.systemd.restart(KUBELET_SERVICE);
            o.metrics?.healthCheckRestarts.inc({ component: this.name });
          },
        })
      : undefined;
  }

  async check(node: V1Node | undefined, signal: AbortSignal): Promise<void> {
    if (node) {
      this.verifyReady(node);
      await this.internalIp?.ensure(node);
    }
    try {
      await this.o.probe(signal);
    } catch (e) {
      if (signal.aborted) throw e;
      await this.restarter.unhealthy(node, e instanceof Error ? e.message : String(e));
      return;
    }
    this.restarter.healthy(node);
  }

  private verifyReady(node: V1Node): void {
    const ready = isReady(node);
    if (ready && !this.ready) {
      this.o.log.info('Kubelet became Ready');
      if (this.toggles.toggle()) {
        const message =
          `Kubelet toggled between NotReady and Ready at least ${this.toggles.threshold} times in a ` +
          `${formatGoDuration(this.toggles.windowMs * 1e6)} time window. Rebooting the node might help`;
        this.o.log.error(message);
        nodeEvent(this.o, node, 'Warning', this.name, message);
      }
    }
    this.ready = ready;
  }
}
