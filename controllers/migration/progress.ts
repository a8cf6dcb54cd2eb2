/**
 * How far the `UseGardenerNodeAgent` migration of a shoot got (gardener v1.91.4
 * pkg/gardenlet/operation/botanist/worker.go): a node counts as migrated when its agent holds a
 * fresh Lease `gardener-node-agent-<node>` and the node reports its pool's current OSC checksum.
 * Nodes about to be deleted and nodes of another key (a rolling update replaces them) do not block;
 * every other node does, by name.
 */
import {
  ANNOTATION,
  key,
  LABEL,
  nodeAgentLeaseName,
  TAINT_PREFER_NO_SCHEDULE,
  tryParseSemVer,
} from '../../api/index.js';
import type { NodeInfo, OscSecretInfo } from '../../seed/shoot-nodes/shoot-node-state.js';

export interface LeaseInfo {
  readonly name: string;
  /** Milliseconds since the epoch of the last renewal. */
  readonly renewTime?: number;
  readonly leaseDurationSeconds?: number;
}

export interface PoolProgress {
  readonly pool: string;
  readonly migrated: number;
  readonly total: number;
  /** Nodes that keep the migration from completing, with why. */
  readonly blocking: readonly { node: string; reason: string }[];
}

export interface MigrationProgress {
  readonly pools: readonly PoolProgress[];
  readonly done: boolean;
}

function leaseFresh(lease: LeaseInfo | undefined, now: number): boolean {
  if (!lease?.renewTime) return false;
  return lease.renewTime + (lease.leaseDurationSeconds ?? 40) * 1000 >= now;
}

export function migrationProgress(
  pools: readonly string[],
  secretsByPool: ReadonlyMap<string, OscSecretInfo>,
  nodesByPool: ReadonlyMap<string, readonly NodeInfo[]>,
  leases: ReadonlyMap<string, LeaseInfo>,
  now: number,
): MigrationProgress {
  const out: PoolProgress[] = [];
  for (const pool of pools) {
    const secret = secretsByPool.get(pool);
    const blocking: { node: string; reason: string }[] = [];
    let migrated = 0;
    let total = 0;
    for (const node of nodesByPool.get(pool) ?? []) {
      if (
        node.taints?.some(
          (t) => t.key === TAINT_PREFER_NO_SCHEDULE.key && t.effect === TAINT_PREFER_NO_SCHEDULE.effect,
        )
      )
        continue;
      const version = tryParseSemVer(node.labels?.[LABEL.kubernetesVersion] ?? '');
      if (secret && version && key(pool, version, node.labels?.[LABEL.criName]) !== secret.name) continue;
      total++;
      const reason = !secret
        ? `the operating system config secret of worker pool "${pool}" does not exist in the shoot yet`
        : !leaseFresh(leases.get(nodeAgentLeaseName(node.name)), now)
          ? 'gardener-node-agent has not reported a fresh Lease'
          : node.annotations?.[ANNOTATION.checksumCloudConfigData] !==
              secret.annotations?.[ANNOTATION.checksumDataScript]
            ? "the node does not report its worker pool's current operating system config checksum"
            : undefined;
      if (reason) blocking.push({ node: node.name, reason });
      else migrated++;
    }
    if (!secret && total === 0)
      blocking.push({
        node: '',
        reason: `the operating system config secret of worker pool "${pool}" does not exist in the shoot yet`,
      });
    out.push({ pool, migrated, total, blocking });
  }
  return { pools: out, done: out.every((p) => p.blocking.length === 0) };
}

/** One line per pool, naming at most three blocking nodes: for events and logs. */
export function describeProgress(progress: MigrationProgress): string {
  return progress.pools
    .map((p) => {
      const names = p.blocking.filter((b) => b.node).slice(0, 3);
      const blocked = names.map((b) => `node "${b.node}": ${b.reason}`).join('; ');
      const general = p.blocking.find((b) => !b.node)?.reason;
      return `pool ${p.pool}: ${p.migrated}/${p.total} migrated${general ? ` (${general})` : ''}${blocked ? `; waiting for ${blocked}${p.blocking.length > names.length ? ', ...' : ''}` : ''}`;
    })
    .join('\n');
}
