/**
 * The rollout status of a shoot as a table for people (`gardener-osc rollout status`): one row per
 * worker pool, then the nodes that failed. Pure.
 */
import { humanDuration } from '../../api/human-duration.js';
import { MAX_FAILURES } from './bound.js';
import type { RolloutStatus } from './state.js';

const when = (ms: number | undefined, now: number): string => {
  if (ms === undefined) return '-';
  // kubectl's ages (`275d`, not `6612h`)
  return `${new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')} (${humanDuration(Math.max(0, now - ms))} ago)`;
};

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('   ')
        .trimEnd(),
    )
    .join('\n');
}

export function formatRolloutStatus(status: RolloutStatus, now: number): string {
  const pools = [...status.keys()].sort();
  if (pools.length === 0) return 'no worker pool has a rollout\n';
  const rows = [
    ['POOL', 'TARGET', 'PHASE', 'WAVE', 'UPDATED', 'FAILED', 'PENDING', 'HALTED SINCE', 'REASON'],
  ];
  for (const pool of pools) {
    const p = status.get(pool)!;
    rows.push([
      pool,
      p.target.slice(0, 12),
      p.phase,
      String(p.wave),
      String(p.updated),
      String(p.failed),
      String(p.pending),
      when(p.haltedSince, now),
      p.reason ?? '-',
    ]);
  }
  let out = `${table(rows)}\n`;
  const failures = pools.flatMap((pool) =>
    status
      .get(pool)!
      .failures.map((f) => [pool, f.node, f.reason, f.accepted ? 'accepted' : 'open', f.message]),
  );
  if (failures.length > 0)
    out += `\n${table([['POOL', 'NODE', 'REASON', 'FAILURE', 'MESSAGE'], ...failures])}\n`;
  for (const pool of pools) {
    const p = status.get(pool)!;
    if (p.stalled?.length) out += `${pool}: the wave waits beyond its timeout for ${p.stalled.join(', ')}\n`;
    if (p.skipped?.length)
      out += `${pool}: skipped by a stalled wave, keep what they run: ${p.skipped.join(', ')}\n`;
    const omitted = p.failed - p.failures.length;
    if (p.failures.length >= MAX_FAILURES && omitted > 0)
      out += `${pool}: ${omitted} more failed node(s) counted but not named (the status names at most ${MAX_FAILURES} per pool)\n`;
  }
  return out;
}
