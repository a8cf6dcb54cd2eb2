/**
 * The rollout step as an SVG chart: one row per node, grouped by pool; for each rollout of the step
 * (the change; with --break-rollout the bad change and then its fix) a bar from the node's
 * permission to its report (red when it failed), its restarts as dots, the start of each wave and
 * the halt of a pool as vertical marks; below, kubelet restarts per 1 s bucket. Pure.
 */
import type { ScenarioResult } from './scenario-result.js';

const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const rel = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

const COLORS = ['#2a6fdb', '#1e9e5a'];

export function rolloutSvg(r: ScenarioResult): string {
  const t0 = r.rollout.secretsChangedAt;
  const broken = r.rollout.mode === 'broken';
  const pools = [...new Set(r.nodes.map((n) => n.pool))];
  const nodes = [...r.nodes].sort(
    (a, b) =>
      pools.indexOf(a.pool) - pools.indexOf(b.pool) ||
      (a.rollout.changes[0]?.permittedAt ?? Number.POSITIVE_INFINITY) -
        (b.rollout.changes[0]?.permittedAt ?? Number.POSITIVE_INFINITY) ||
      a.name.localeCompare(b.name),
  );
  const times = nodes.flatMap((n) =>
    n.rollout.changes.flatMap((c) => [c?.reportedAt, ...(c?.restarts.map((u) => u.at) ?? [])]),
  );
  const lastMs = Math.max(5000, ...times.filter((t): t is number => t !== undefined).map((t) => t - t0));
  const seconds = Math.ceil(lastMs / 1000) + 2;
  const left = 250;
  const right = 30;
  const plot = 680;
  const width = left + plot + right;
  const row = 20;
  const top = 100;
  const gap = 10;
  const y0 = new Map<string, number>();
  let y = top;
  for (const pool of pools) {
    y0.set(pool, y);
    y += nodes.filter((n) => n.pool === pool).length * row + gap;
  }
  const rowsBottom = y;
  const histTop = rowsBottom + 30;
  const histHeight = 70;
  const height = histTop + histHeight + 80;
  const x = (ms: number) => left + (Math.max(0, ms - t0) / (seconds * 1000)) * plot;
  const out: string[] = [];
  const title = broken
    ? `A bad kubelet configuration behind the health gate: ${r.nodes.length} nodes, ${pools.length} pools`
    : `Kubelet configuration rollout in waves behind the health gate: ${r.nodes.length} nodes, ${pools.length} pools`;
  const subtitle = r.rollout.bad
    ? `bad configuration applied on ${r.rollout.bad.applied} of ${r.rollout.bad.nodes} nodes; rollout halted; then the fix (the previous spec), the failed nodes first`
    : `${r.rollout.change}; canary ${r.rollout.canary}, settle ${rel(r.rollout.settleMs)}`;
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="20" y="22" font-size="15" font-weight="bold">${esc(title)}</text>`,
    `<text x="20" y="40" fill="#555">${esc(r.rollout.change)}</text>`,
    `<text x="20" y="56" fill="#555">${esc(subtitle)}</text>`,
  );
  for (let sec = 0; sec <= seconds; sec++) {
    const gx = x(t0 + sec * 1000).toFixed(1);
    out.push(
      `<line x1="${gx}" y1="${top - 8}" x2="${gx}" y2="${histTop + histHeight}" stroke="${sec % 5 === 0 ? '#ccc' : '#f2f2f2'}"/>`,
    );
    if (sec % 5 === 0)
      out.push(`<text x="${gx}" y="${top - 12}" text-anchor="middle" fill="#555">${sec}s</text>`);
  }
  r.rollout.changes.forEach((change, i) => {
    for (const wave of change.waves) {
      const top0 = y0.get(wave.pool)!;
      const h = nodes.filter((n) => n.pool === wave.pool).length * row;
      const wx = x(wave.at).toFixed(1);
      out.push(
        `<line x1="${wx}" y1="${top0}" x2="${wx}" y2="${top0 + h}" stroke="${COLORS[i] ?? '#888'}" stroke-dasharray="2 2"><title>${esc(`${change.label}: ${wave.pool} wave ${wave.wave} (${wave.kind}): ${wave.nodes.join(', ')}`)}</title></line>`,
        `<text x="${(Number(wx) + 2).toFixed(1)}" y="${top0 - 1}" font-size="9" fill="${COLORS[i] ?? '#888'}">w${wave.wave}</text>`,
      );
    }
    for (const end of change.pools.values()) {
      if (end.phase !== 'Halted') continue;
      const top0 = y0.get(end.pool)!;
      const h = nodes.filter((n) => n.pool === end.pool).length * row;
      const hx = x(end.at).toFixed(1);
      out.push(
        `<line x1="${hx}" y1="${top0}" x2="${hx}" y2="${top0 + h}" stroke="#c33" stroke-width="2"><title>${esc(`${end.pool} halted: ${end.reason ?? ''}`)}</title></line>`,
        `<text x="${(Number(hx) + 3).toFixed(1)}" y="${top0 + h - 3}" font-size="10" fill="#c33">halted</text>`,
      );
    }
  });
  const rowIndex = new Map<string, number>();
  for (const pool of pools)
    for (const [i, n] of nodes.filter((x) => x.pool === pool).entries()) rowIndex.set(n.name, i);
  for (const n of nodes) {
    const cy = y0.get(n.pool)! + rowIndex.get(n.name)! * row + row / 2;
    out.push(
      `<text x="${left - 8}" y="${cy + 4}" text-anchor="end">${esc(`${n.name}  ${n.pool}  ${n.zone}`)}</text>`,
    );
    n.rollout.changes.forEach((c, i) => {
      // a node that already ran the change (the fix: the previous spec) got nothing
      if (!c || c.permittedAt === undefined || (c.wave === undefined && c.reportedAt === undefined)) return;
      const end = c.reportedAt ?? c.permittedAt;
      const failed = c.result === 'Failed';
      const label = `${r.rollout.changes[i]?.label}: wave ${c.wave ?? '-'}, permitted at ${rel(c.permittedAt - t0)}, ${c.result ?? 'no report'}${c.reportedAt !== undefined ? ` at ${rel(c.reportedAt - t0)}` : ''}${c.reason && failed ? ` (${c.reason})` : ''}`;
      out.push(
        `<rect x="${x(c.permittedAt).toFixed(1)}" y="${cy - 4}" width="${Math.max(2, x(end) - x(c.permittedAt)).toFixed(1)}" height="8" fill="${failed ? '#d33' : (COLORS[i] ?? '#888')}" opacity="0.35"><title>${esc(`${n.name} ${label}`)}</title></rect>`,
      );
      for (const u of c.restarts)
        out.push(
          `<circle cx="${x(u.at).toFixed(1)}" cy="${cy}" r="5" fill="${failed ? '#d33' : u.unit === 'kubelet.service' ? (COLORS[i] ?? '#888') : '#e08a00'}"><title>${esc(`${n.name}: restart ${u.unit} at ${rel(u.at - t0)}${failed ? ' (it did not stay up)' : ''}`)}</title></circle>`,
        );
      if (failed && c.reportedAt !== undefined)
        out.push(
          `<text x="${(x(c.reportedAt) + 6).toFixed(1)}" y="${cy + 4}" fill="#d33" font-weight="bold">✕ ${esc(c.reason ?? '')}</text>`,
        );
    });
  }
  const buckets = r.rollout.kubeletRestartsPerSecond;
  const most = Math.max(1, ...buckets);
  out.push(`<text x="${left - 8}" y="${histTop + 12}" text-anchor="end">kubelet restarts / 1 s</text>`);
  buckets.forEach((count, sec) => {
    if (!count) return;
    const h = (count / most) * histHeight;
    const bx = x(t0 + sec * 1000);
    const w = x(t0 + 1000) - x(t0);
    out.push(
      `<rect x="${(bx + 1).toFixed(1)}" y="${(histTop + histHeight - h).toFixed(1)}" width="${(w - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${COLORS[0]}"/>`,
      `<text x="${(bx + w / 2).toFixed(1)}" y="${(histTop + histHeight - h - 3).toFixed(1)}" text-anchor="middle" font-size="10">${count}</text>`,
    );
  });
  out.push(
    `<line x1="${left}" y1="${histTop + histHeight}" x2="${left + plot}" y2="${histTop + histHeight}" stroke="#333"/>`,
    `<text x="20" y="${height - 44}" fill="#555">${esc('t = 0: the OSC secrets changed. Bar: from the Node getting the change (its permission) to the agent reporting it (after its settle time);')}</text>`,
    `<text x="20" y="${height - 28}" fill="#555">${esc(`dot: kubelet.service restarted; dashed: a wave starts (w1: the canary); red: failed, ${broken ? 'the pool halted (red line); green: the fix' : 'the pool halts'}.`)}</text>`,
    `<text x="20" y="${height - 12}" fill="#555">${esc('Rows grouped by pool, in the order the gate let the change out.')}</text>`,
    '</svg>',
    '',
  );
  return out.join('\n');
}
