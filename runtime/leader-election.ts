/**
 * Leader election on a coordination.k8s.io Lease, as client-go does it: acquire when the lease is
 * free or its holder stopped renewing for a lease duration (measured on our clock, from when we
 * last saw the record change, so clock skew between hosts does not matter), renew every retry
 * period, and give up leadership when a renewal has not succeeded within the renew deadline.
 * Updates use optimistic locking (resourceVersion), so two candidates never both win.
 */
import { formatMicroTime } from '../api/index.js';
import { type Clock, realClock, sleep } from './clock.js';
import { isApiStatus } from './kube/api-status.js';
import type { KubeClient } from './kube/kube-client.js';
import type { WireLease } from './kube/lease.js';
import { RESOURCE } from './kube/resource.js';
import { type Logger, silentLogger } from './logging.js';

export interface LeaderElectionOptions {
  readonly client: Pick<KubeClient, 'get' | 'create' | 'update'>;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly clock?: Clock;
  readonly log?: Logger;
  /** Runs while we lead; its signal aborts when leadership is lost or the elector stops. */
  readonly onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  readonly onStoppedLeading?: () => void;
  /** Hand the lease over at once when stopped (default true); false leaves it to expire. */
  readonly releaseOnStop?: boolean;
}

export class LeaderElector {
  private readonly o: LeaderElectionOptions & {
    leaseDurationMs: number;
    renewDeadlineMs: number;
    retryPeriodMs: number;
  };
  private readonly clock: Clock;
  private readonly log: Logger;
  private observed: { record: string; at: number } | undefined;
  leading = false;

  constructor(options: LeaderElectionOptions) {
    this.o = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...options };
    this.clock = options.clock ?? realClock;
    this.log = (options.log ?? silentLogger).child({
      lease: `${options.namespace}/${options.name}`,
      identity: options.identity,
    });
  }

  /** Campaigns, leads, and campaigns again after losing leadership, until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.acquire(signal))) return;
      await this.lead(signal);
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew()) return true;
      await sleep(this.clock, this.o.retryPeriodMs, signal).catch(() => undefined);
    }
    return false;
  }

  private async lead(signal: AbortSignal): Promise<void> {
    this.leading = true;
    this.log.info('Became leader');
    const leadership = new AbortController();
    const onStop = () => leadership.abort(signal.reason);
    signal.addEventListener('abort', onStop, { once: true });
    const work = Promise.resolve()
      .then(() => this.o.onStartedLeading(leadership.signal))
      .catch((e) => this.log.error({ err: e }, 'Leader work failed'));
    let lastRenew = this.clock.now();
    while (!leadership.signal.aborted) {
      await sleep(this.clock, this.o.retryPeriodMs, leadership.signal).catch(() => undefined);
      if (leadership.signal.aborted) break;
      if (await this.tryAcquireOrRenew()) {
        lastRenew = this.clock.now();
      } else if (this.clock.now() - lastRenew >= this.o.renewDeadlineMs) {
        this.log.info('Lost leadership: renew deadline exceeded');
        leadership.abort(new Error('leadership lost'));
      }
    }
    signal.removeEventListener('abort', onStop);
    await work;
    this.leading = false;
    if (signal.aborted && this.o.releaseOnStop !== false) await this.release();
    this.o.onStoppedLeading?.();
  }

  private spec(previous: WireLease | undefined): WireLease['spec'] {
    const now = formatMicroTime(new Date(this.clock.now()));
    const wasMine = previous?.spec?.holderIdentity === this.o.identity;
    return {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: wasMine && previous?.spec?.acquireTime ? previous.spec.acquireTime : now,
      renewTime: now,
      leaseTransitions: (previous?.spec?.leaseTransitions ?? 0) + (previous && !wasMine ? 1 : 0),
    };
  }

  /** One attempt; false when someone else holds a live lease or the update lost a race. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { client, namespace, name } = this.o;
    let lease: WireLease;
    try {
      lease = await client.get<WireLease>(RESOURCE.lease, { name, namespace });
    } catch (error) {
      if (!isApiStatus(error, 404)) {
        this.log.warn({ err: error }, 'Reading the lease failed');
        return false;
      }
      try {
        await client.create<WireLease>(RESOURCE.lease, {
          metadata: { name, namespace },
          spec: this.spec(undefined),
        });
        return true;
      } catch (e) {
        if (!isApiStatus(e, 409)) this.log.warn({ err: e }, 'Creating the lease failed');
        return false;
      }
    }
    const holder = lease.spec?.holderIdentity ?? '';
    const record = `${holder}|${String(lease.spec?.renewTime ?? '')}|${lease.metadata?.resourceVersion}`;
    const now = this.clock.now();
    if (this.observed?.record !== record) this.observed = { record, at: now };
    const duration = (lease.spec?.leaseDurationSeconds ?? 0) * 1000;
    if (holder && holder !== this.o.identity && this.observed.at + duration > now) return false;
    try {
      await client.update<WireLease>(RESOURCE.lease, { ...lease, spec: this.spec(lease) });
      return true;
    } catch (e) {
      if (!isApiStatus(e, 409)) this.log.warn({ err: e }, 'Updating the lease failed');
      return false;
    }
  }

  /** Lets the next candidate take over at once instead of waiting a lease duration. */
  private async release(): Promise<void> {
    const { client, namespace, name } = this.o;
    try {
      const lease = await client.get<WireLease>(RESOURCE.lease, { name, namespace });
      if (lease.spec?.holderIdentity !== this.o.identity) return;
      await client.update<WireLease>(RESOURCE.lease, {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 },
      });
      this.log.info('Released leadership');
    } catch (error) {
      this.log.warn({ err: error }, 'Releasing the lease failed');
    }
  }
}
