/**
 * `gardener-osc rollout drift`: the shoot's drifted nodes per worker pool, from the condition
 * `NodeConfigurationDrift` their agents keep (docs/node-agent.md#drift). Pure: Nodes in, a table
 * or a document out.
 */
import type { V1Node } from '@kubernetes/client-node';
import { DRIFT_CONDITION_TYPE, LABEL } from '../api/index.js';

export interface DriftedNode {
  readonly node: string;
  /** Since when the condition is True. */
  readonly since?: string;
  readonly message: string;
}

export interface PoolDrift {
  readonly pool: string;
  readonly nodes: number;
  /** Nodes whose agent reports no drift condition (drift monitor off, or an older agent). */
  readonly unwatched: number;
  readonly drifted: readonly DriftedNode[];
}

const timeText = (t: Date | string | undefined) =>
  t === undefined ? undefined : t instanceof Date ? t.toISOString() : String(t);

export function driftByPool(nodes: readonly V1Node[]): PoolDrift[] {
  const pools = new Map<string, { nodes: number; unwatched: number; drifted: DriftedNode[] }>();
  for (const node of nodes) {
    const pool = node.metadata?.labels?.[LABEL.workerPool] ?? '(no pool)';
    const entry = pools.get(pool) ?? { nodes: 0, unwatched: 0, drifted: [] };
    pools.set(pool, entry);
    entry.nodes++;
    const condition = node.status?.conditions?.find((c) => c.type === DRIFT_CONDITION_TYPE);
    if (!condition) entry.unwatched++;
    else if (condition.status === 'True') {
      const since = timeText(condition.lastTransitionTime);
      entry.drifted.push({
        node: node.metadata?.name ?? '',
        ...(since ? { since } : {}),
        message: condition.message ?? '',
      });
    }
  }
  return [...pools.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([pool, e]) => ({ pool, ...e, drifted: e.drifted.sort((a, b) => a.node.localeCompare(b.node)) }));
}

export function formatDriftTable(pools: readonly PoolDrift[]): string {
  if (pools.length === 0) return 'no nodes\n';
  const lines: string[] = [];
  for (const p of pools) {
    const unwatched = p.unwatched > 0 ? `, ${p.unwatched} not watched for drift` : '';
    lines.push(`${p.pool}: ${p.drifted.length} of ${p.nodes} nodes drifted${unwatched}`);
    for (const d of p.drifted) lines.push(`  ${d.node}${d.since ? ` since ${d.since}` : ''}: ${d.message}`);
  }
  return `${lines.join('\n')}\n`;
}
