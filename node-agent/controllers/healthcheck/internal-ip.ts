/**
 * Lost InternalIP recovery (gardener v1.91.4 pkg/nodeagent/controller/healthcheck/kubelet.go):
 * remember the Node's InternalIP; when the status loses every address while the host still has that
 * IP, write it back, because without an address the API server cannot reach the kubelet (logs,
 * exec, metrics) even though it runs.
 */
import { networkInterfaces } from 'node:os';
import type { V1Node } from '@kubernetes/client-node';
import { isApiStatus } from '../../../runtime/kube/api-status.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';
import { type CheckerDeps, nodeEvent } from './checker.js';

/** Writes the Node's status (the `nodes/status` subresource). */
export type NodeStatusWriter = (node: V1Node) => Promise<void>;

export function nodeStatusWriter(client: Pick<KubeClient, 'update'>): NodeStatusWriter {
  return async (node) => {
    await client.update(RESOURCE.node, node, { subresource: 'status' });
  };
}

/** The host's interface addresses, as IPs without prefix length. */
export function hostAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
}

/** One spelling per IP, so `2001:DB8::0:1` and `2001:db8::1` are the same address. */
function canonicalIp(ip: string): string {
  if (!ip.includes(':')) return ip;
  try {
    return new URL(`http://[${ip.split('%')[0]}]/`).hostname.slice(1, -1);
  } catch {
    return ip;
  }
}

export interface InternalIpRecoveryOptions extends CheckerDeps {
  readonly writeStatus: NodeStatusWriter;
  readonly hostAddresses?: () => string[];
  /** The last resort when the status cannot be written: the kubelet reports its addresses on start. */
  readonly restartKubelet: () => Promise<void>;
}

export class InternalIpRecovery {
  private lastInternalIp: string | undefined;

  constructor(private readonly o: InternalIpRecoveryOptions) {}

  async ensure(node: V1Node): Promise<void> {
    const addresses = node.status?.addresses ?? [];
    const last = (type: string) => addresses.filter((a) => a.type === type).at(-1)?.address ?? '';
    const internal = last('InternalIP');
    if (internal) {
      this.lastInternalIp = canonicalIp(internal);
      return;
    }
    if (last('ExternalIP')) return;
    const known = this.lastInternalIp;
    const message = 'Node status does neither have an internal nor an external IP';
    if (!known) {
      nodeEvent(this.o, node, 'Warning', 'kubelet', message);
      return;
    }
    nodeEvent(
      this.o,
      node,
      'Warning',
      'kubelet',
      `${message}, try to recover from last known internal IP:${known}`,
    );
    const onHost = (this.o.hostAddresses ?? hostAddresses)().some((a) => canonicalIp(a) === known);
    if (!onHost) return;
    try {
      await this.o.writeStatus({
        ...node,
        status: { ...node.status, addresses: [{ type: 'InternalIP', address: known }] },
      });
    } catch (e) {
      // a conflict only means the kubelet wrote first: look again next round
      if (isApiStatus(e, 409)) throw e;
      const text = `Unable to update node with internal IP, restarting kubelet: ${(e as Error).message}`;
      this.o.log.error({ err: e }, text);
      nodeEvent(this.o, node, 'Warning', 'kubelet', text);
      await this.o.restartKubelet();
      return;
    }
    const done = `Updated the lost internal IP address of node status to the previous known: ${known} `;
    this.o.log.info({ ip: known }, done.trim());
    nodeEvent(this.o, node, 'Normal', 'kubelet', done);
  }
}
