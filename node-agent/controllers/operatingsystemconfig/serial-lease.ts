/**
 * Serial reconciliation (gardener v1.150.0 pkg/nodeagent/controller/operatingsystemconfig/serial.go,
 * reconciler.go): when the OSC secret carries `reconciliation.osc.node-agent.gardener.cloud/serial:
 * "true"`, the agents of its pool apply one at a time. The one applying holds the Lease named like
 * the secret, in its namespace, owned by the secret (controller reference), for 600 s with its
 * hostname as holder; another agent whose Lease is held and renewed in time waits until it
 * expires; an expired holder is taken over. The holder releases it (holder, duration, acquire and
 * renew time cleared) once its node is up to date, or when it finds the node up to date already.
 */
import type { V1Secret } from '@kubernetes/client-node';
import { formatMicroTime } from '../../../api/index.js';
import type { Clock } from '../../../runtime/clock.js';
import type { KubeClient } from '../../../runtime/kube/kube-client.js';
import type { WireLease } from '../../../runtime/kube/lease.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';

export const ANNOTATION_SERIAL_RECONCILIATION = 'reconciliation.osc.node-agent.gardener.cloud/serial';
export const SERIAL_LEASE_DURATION_SECONDS = 600;

export const isSerialReconciliation = (secret: V1Secret): boolean =>
  secret.metadata?.annotations?.[ANNOTATION_SERIAL_RECONCILIATION] === 'true';

type LeaseClient = Pick<KubeClient, 'getIfExists' | 'create' | 'update'>;

export class SerialLease {
  private lease: WireLease | undefined;

  /** `secret`: the OSC secret; without the annotation the Lease is undefined and nothing is done. */
  constructor(
    private readonly client: LeaseClient,
    secret: V1Secret,
    private readonly identity: string,
    private readonly clock: Clock,
  ) {
    if (!isSerialReconciliation(secret)) return;
    this.lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: secret.metadata?.name ?? '',
        namespace: secret.metadata?.namespace ?? '',
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'Secret',
            name: secret.metadata?.name ?? '',
            uid: secret.metadata?.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
    };
  }

  private holder(): string {
    return this.lease?.spec?.holderIdentity ?? '';
  }

  private heldByMe(): boolean {
    return this.lease !== undefined && this.holder() === this.identity;
  }

  heldByAnother(): boolean {
    return this.lease !== undefined && this.holder() !== '' && !this.heldByMe();
  }

  /** When the current holder's claim ends (ms since the epoch), or undefined without a claim. */
  private expiry(): number | undefined {
    const spec = this.lease?.spec;
    const duration = spec?.leaseDurationSeconds ?? 0;
    if (duration < 0 || spec?.renewTime === undefined) return undefined;
    return Date.parse(spec.renewTime) + duration * 1000;
  }

  renewedInTime(): boolean {
    const expiry = this.expiry();
    return expiry !== undefined && expiry > this.clock.now();
  }

  msUntilExpiry(): number {
    const expiry = this.expiry();
    return expiry === undefined ? 0 : expiry - this.clock.now();
  }

  async reload(): Promise<void> {
    if (!this.lease?.metadata?.name) return;
    const { name, namespace } = this.lease.metadata;
    const current = await this.client.getIfExists<WireLease>(RESOURCE.lease, { name, namespace });
    // as upstream's Get into its Lease object: what the server's copy lacks (an owner) is kept
    if (current)
      this.lease = {
        ...current,
        metadata: {
          ...current.metadata,
          ownerReferences: current.metadata?.ownerReferences ?? this.lease.metadata.ownerReferences,
        },
      };
  }

  async acquireOrRenew(): Promise<void> {
    if (!this.lease) throw new Error('cannot acquire or renew Lease because it is not set');
    const now = formatMicroTime(new Date(this.clock.now()));
    const spec = this.heldByMe()
      ? { ...this.lease.spec, renewTime: now }
      : {
          ...this.lease.spec,
          holderIdentity: this.identity,
          leaseDurationSeconds: SERIAL_LEASE_DURATION_SECONDS,
          acquireTime: now,
          renewTime: now,
        };
    const next = { ...this.lease, spec };
    this.lease = next.metadata?.resourceVersion
      ? await this.client.update<WireLease>(
          RESOURCE.lease,
          next as WireLease & { metadata: { name: string } },
        )
      : await this.client.create<WireLease>(
          RESOURCE.lease,
          next as WireLease & { metadata: { name: string } },
        );
  }

  async release(): Promise<void> {
    if (!this.lease || !this.heldByMe()) return;
    const {
      holderIdentity: _h,
      leaseDurationSeconds: _d,
      acquireTime: _a,
      renewTime: _r,
      ...rest
    } = this.lease.spec ?? {};
    this.lease = await this.client.update<WireLease>(RESOURCE.lease, {
      ...this.lease,
      spec: rest,
    } as WireLease & { metadata: { name: string } });
  }
}
