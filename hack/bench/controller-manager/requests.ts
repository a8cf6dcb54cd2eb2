/** The controller-manager's API requests, from the audit logs: all, writes, leader election, watches. */
import { type ApiRequest, WRITE_VERBS, watchStream } from '../support/audit.js';
import type { Landscape } from './landscape.js';
import { MANAGER_NAMESPACE, SEED_USER, shootUser } from './options.js';

export interface Requests {
  readonly all: ApiRequest[];
  readonly writes: ApiRequest[];
  /** Leader election: per process, not per shoot. */
  readonly leaderElection: ApiRequest[];
  readonly watches: ApiRequest[];
}

export function managerRequests(landscape: Landscape, shoots: number, from: number, to: number): Requests {
  const shootUsers = new Set(Array.from({ length: shoots }, (_, i) => shootUser(i)));
  const all = [
    ...landscape.seedAudit.requests((u) => u === SEED_USER),
    ...landscape.shootAudit.requests((u) => shootUsers.has(u)),
  ].filter((r) => r.at >= from && r.at < to);
  const isLease = (r: ApiRequest) =>
    r.resource === 'coordination.k8s.io/leases' &&
    r.namespace === MANAGER_NAMESPACE &&
    r.username === SEED_USER;
  return {
    all: all.filter((r) => !isLease(r)),
    writes: all.filter((r) => !isLease(r) && WRITE_VERBS.has(r.verb)),
    leaderElection: all.filter(isLease),
    watches: all.filter((r) => r.verb === 'watch'),
  };
}

export function describeRequests(requests: readonly ApiRequest[], limit = 6): string {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const key = `${r.verb} ${r.resource}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return (
    [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none'
  );
}

/** Distinct watch streams (path + selectors), split into those of one shoot and those of all. */
export function watchStreams(requests: readonly ApiRequest[], shoots: number) {
  const perShoot = new Set<string>();
  const shared = new Set<string>();
  for (const r of requests) {
    if (r.verb !== 'watch') continue;
    const stream = `${r.username} ${watchStream(r.uri)}`;
    const ofOneShoot = r.username !== SEED_USER || (r.namespace?.startsWith('shoot--bench--') ?? false);
    (ofOneShoot ? perShoot : shared).add(stream);
  }
  return { perShoot: perShoot.size / shoots, shared: shared.size };
}
