/**
 * Whether every node of every worker pool runs its pool's current OSC (gardener v1.91.4
 * pkg/gardenlet/operation/botanist/worker.go, S-TV-23): nodes about to be deleted and nodes of
 * another key (a rolling update) are skipped; the others must report the secret's checksum in
 * `checksum/cloud-config-data`. Pure.
 */
import { ANNOTATION, key, LABEL, TAINT_PREFER_NO_SCHEDULE, tryParseSemVer } from '../../api/index.js';
import type { ShootNodeState } from '../../seed/shoot-nodes/shoot-node-state.js';

/** Why something is not up to date; `node` names the node when it is one node's fault. */
export interface NodeProblem {
  readonly kind: 'missing-secret' | 'invalid-version' | 'not-reported' | 'outdated';
  readonly node?: string;
  /** Upstream's message. */
  readonly message: string;
}

/** The reasons some node is not up to date; empty when all are. */
export function nodesNotUpdated(state: ShootNodeState): NodeProblem[] {
  const problems: NodeProblem[] = [];
  for (const pool of state.pools) {
    const secret = state.secretsByPool.get(pool);
    if (!secret) {
      problems.push({
        kind: 'missing-secret',
        message: `missing operating system config secret metadata for worker pool "${pool}"`,
      });
      continue;
    }
    const desired = secret.annotations?.[ANNOTATION.checksumDataScript];
    for (const node of state.nodesByPool.get(pool) ?? []) {
      if (
        node.taints?.some(
          (t) => t.key === TAINT_PREFER_NO_SCHEDULE.key && t.effect === TAINT_PREFER_NO_SCHEDULE.effect,
        )
      )
        continue;
      const versionText = node.labels?.[LABEL.kubernetesVersion] ?? '';
      const version = tryParseSemVer(versionText);
      if (!version) {
        problems.push({
          kind: 'invalid-version',
          node: node.name,
          message: `failed checking whether node "${node.name}" will be deleted: invalid semantic version "${versionText}"`,
        });
        continue;
      }
      if (key(node.labels?.[LABEL.workerPool] ?? '', version, node.labels?.[LABEL.criName]) !== secret.name)
        continue;
      const current = node.annotations?.[ANNOTATION.checksumCloudConfigData];
      if (current === undefined) {
        problems.push({
          kind: 'not-reported',
          node: node.name,
          message: `the last successfully applied operating system config on node "${node.name}" hasn't been reported yet`,
        });
      } else if (current !== desired) {
        problems.push({
          kind: 'outdated',
          node: node.name,
          message: `the last successfully applied operating system config on node "${node.name}" is outdated (current: ${current}, desired: ${desired})`,
        });
      }
    }
  }
  return problems;
}

export interface NodeStatus {
  /** Nodes of the pools (not being deleted). */
  readonly total: number;
  /** Nodes of a current key that did not report the current checksum (yet). */
  readonly outdated: number;
  readonly problems: readonly NodeProblem[];
  /** What is reported when it changes: `updated`, or the problems. */
  readonly summary: string;
}

export function nodeStatus(state: ShootNodeState): NodeStatus {
  const problems = nodesNotUpdated(state);
  const total = state.pools.reduce((sum, p) => sum + (state.nodesByPool.get(p)?.length ?? 0), 0);
  const outdated = problems.filter((p) => p.kind === 'not-reported' || p.kind === 'outdated').length;
  return {
    total,
    outdated,
    problems,
    summary: problems.length === 0 ? 'updated' : problems.map((p) => p.message).join('; '),
  };
}

/** The Normal event a node status is reported with on its Cluster. */
export interface NodeStatusReport {
  readonly reason: 'NodesUpdated' | 'NodesOutdated';
  readonly message: string;
}

export const NODE_STATUS_REASONS: readonly NodeStatusReport['reason'][] = ['NodesUpdated', 'NodesOutdated'];

export function nodeStatusReport(status: NodeStatus): NodeStatusReport {
  if (status.problems.length === 0)
    return {
      reason: 'NodesUpdated',
      message: `All ${status.total} nodes run their worker pool's current operating system config`,
    };
  return {
    reason: 'NodesOutdated',
    message: status.problems
      .slice(0, 10)
      .map((p) => p.message)
      .join('\n'),
  };
}

/** An Event as listed (the fields read here). */
export interface ListedEvent {
  readonly reason?: string;
  readonly message?: string;
  readonly involvedObject?: { readonly uid?: string };
  readonly lastTimestamp?: string | Date | null;
  readonly eventTime?: string | Date | null;
  readonly metadata?: { readonly creationTimestamp?: string | Date };
}

const eventTime = (e: ListedEvent): number =>
  Date.parse(String(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? '')) || 0;

/**
 * The node status last reported on a Cluster (the newest of its node status events), so a
 * restarted process that finds the same status reports nothing. Events of another Cluster of the
 * same name (another uid) do not count. Pure.
 */
export function lastNodeStatusReport(
  events: readonly ListedEvent[],
  clusterUid: string | undefined,
): NodeStatusReport | undefined {
  let newest: ListedEvent | undefined;
  for (const e of events) {
    if (!NODE_STATUS_REASONS.includes(e.reason as NodeStatusReport['reason'])) continue;
    if (clusterUid !== undefined && e.involvedObject?.uid !== clusterUid) continue;
    if (!newest || eventTime(e) >= eventTime(newest)) newest = e;
  }
  if (!newest) return undefined;
  return { reason: newest.reason as NodeStatusReport['reason'], message: newest.message ?? '' };
}

export const sameReport = (a: NodeStatusReport | undefined, b: NodeStatusReport): boolean =>
  a?.reason === b.reason && a.message === b.message;
