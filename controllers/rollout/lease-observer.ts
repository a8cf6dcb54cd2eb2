/**
 * When the seed saw each agent Lease change, and what that says about the node (docs/rollout.md,
 * "Leases"). Freshness is judged by the seed's clock alone: a Lease is fresh while the seed saw its
 * `renewTime` or resourceVersion change within the Lease's duration, never by comparing the
 * agent's `renewTime` with the seed's clock (a node 60 s behind would look dead, one an hour
 * ahead would hide a dead agent). This is how the Kubernetes node lifecycle controller judges
 * node Leases: it records a probe timestamp whenever the Lease's renewTime changes and compares
 * that with its own clock (kubernetes v1.34 pkg/controller/nodelifecycle/node_lifecycle_controller.go,
 * `tryUpdateNodeHealth`: `nodeHealth.probeTimestamp = nc.now()` when the Lease's renewTime moved).
 *
 * Two things are not a node failure but the seed not seeing:
 * - right after the gate started watching (its own start, a restart after an outage during which
 *   agents could not renew through the authorizer this process serves), a Lease first seen counts
 *   as renewed at that moment and gets one more lease duration on top: the agents reach an
 *   authorizer that just came back only once the API server's cache of its denials expired
 *   (unauthorizedTTL, 30 s, charts/controller-manager/authorization-config.ts) and their next
 *   renewal is due (10 s), 40 s, one lease duration; then a lease duration as for any Lease;
 * - when most of the shoot's Leases are stale together (the shoot's API server, the authorizer
 *   webhook or the watch is down), no Lease is judged: the stale ones are unknown, and the gate
 *   waits, as it does before the Leases are listed.
 */
import type { LeaseObject } from './observe.js';

/** The longest lease duration believed: a node cannot hide its death for longer by its own spec. */
export const MAX_LEASE_DURATION_MS = 120_000;
/** What the agents write (api LEASE_DURATION_SECONDS); a Lease without a duration gets it. */
export const DEFAULT_LEASE_DURATION_MS = 40_000;

export interface LeaseState {
  /** Fresh, stale, or undefined: the seed cannot tell (see above). */
  readonly fresh: boolean | undefined;
  /** When the seed last saw the Lease change (or first saw it). */
  readonly observedAt?: number;
  /** Since when it is stale, by the seed's clock. */
  readonly staleSince?: number;
  /** The agent's own renewTime, for messages only. */
  readonly renewTime?: string;
}

export interface LeaseJudgement {
  /** Per node name. */
  readonly nodes: ReadonlyMap<string, LeaseState>;
  /** Most of the shoot's Leases are stale together: none was judged. */
  readonly unobservable: boolean;
  /** Stale Leases, of `total` Nodes that have one. */
  readonly stale: number;
  readonly total: number;
}

interface Sighting {
  readonly renewTime: string;
  readonly resourceVersion: string;
  readonly observedAt: number;
}

const text = (t: string | Date | null | undefined): string =>
  t instanceof Date ? t.toISOString() : (t ?? '');

export class LeaseObserver {
  private readonly seen = new Map<string, Sighting>();
  private watchingSince: number | undefined;

  /** When the gate started watching (the first judgement since the start or the last reset). */
  get since(): number | undefined {
    return this.watchingSince;
  }

  /**
   * Records what changed and judges the Lease of each node (by `leaseName(node)`). Call it with the
   * full list every decision; `now` is the seed's clock.
   */
  judge(
    nodes: readonly string[],
    leases: readonly LeaseObject[],
    leaseName: (node: string) => string,
    now: number,
  ): LeaseJudgement {
    this.watchingSince ??= now;
    const byName = new Map<string, LeaseObject>();
    for (const l of leases) byName.set(l.metadata?.name ?? '', l);
    for (const [name, lease] of byName) {
      const renewTime = text(lease.spec?.renewTime);
      const resourceVersion = lease.metadata?.resourceVersion ?? '';
      const before = this.seen.get(name);
      if (!before || before.renewTime !== renewTime || before.resourceVersion !== resourceVersion)
        this.seen.set(name, { renewTime, resourceVersion, observedAt: now });
    }
    for (const name of this.seen.keys()) if (!byName.has(name)) this.seen.delete(name);

    const states = new Map<string, LeaseState>();
    let stale = 0;
    let total = 0;
    for (const node of nodes) {
      const name = leaseName(node);
      const lease = byName.get(name);
      const sighting = this.seen.get(name);
      const spec = lease?.spec?.leaseDurationSeconds;
      const duration = Math.min(spec ? spec * 1000 : DEFAULT_LEASE_DURATION_MS, MAX_LEASE_DURATION_MS);
      // a node without a Lease counts from when the gate started watching, as one first seen then
      const observedAt = sighting?.observedAt ?? this.watchingSince;
      const grace = observedAt === this.watchingSince ? duration : 0;
      const fresh = observedAt + grace + duration >= now;
      // the ratio counts Nodes with a Lease: nodes without an agent (a legacy executor during the
      // migration) would otherwise make the whole shoot look unseen
      if (lease) {
        total++;
        if (!fresh) stale++;
      }
      states.set(node, {
        fresh,
        ...(sighting ? { observedAt: sighting.observedAt, renewTime: sighting.renewTime } : {}),
        ...(fresh ? {} : { staleSince: observedAt + grace + duration }),
      });
    }
    const unobservable = total > 0 && stale * 2 > total;
    if (unobservable)
      for (const [node, s] of states) if (s.fresh === false) states.set(node, { ...s, fresh: undefined });
    return { nodes: states, unobservable, stale, total };
  }

  /** Forgets everything (the Leases are no longer watched). */
  reset(): void {
    this.seen.clear();
    this.watchingSince = undefined;
  }
}
