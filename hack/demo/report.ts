/**
 * What the demo shows at the end, from a ScenarioResult: the checks the issue asks for, the summary
 * table (one row per node) and the rollout timeline as an SVG chart. Pure functions.
 */
import type { NodeResult, ScenarioResult, TimelineEntry } from './scenario.js';

export interface Check {
  readonly ok: boolean;
  readonly text: string;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The outcomes the demo promises; test/e2e asserts the same facts one by one. */
export function checks(r: ScenarioResult): Check[] {
  const n = r.nodes.length;
  const converged = r.nodes.filter((x) => x.rollout.checksumOk).length;
  const early = r.nodes.filter((x) => x.rollout.appliedAt - x.rollout.enqueuedAt < x.rollout.delayMs);
  const wrongDelay = r.nodes.filter((x) => x.rollout.enqueuedDelayMs !== x.rollout.delayMs);
  const others = r.nodes.filter((x) => x.rollout.restarts.some((u) => u.unit !== 'kubelet.service'));
  const kubeletOnce = r.nodes.filter(
    (x) => x.rollout.restarts.filter((u) => u.unit === 'kubelet.service').length === 1,
  );
  const tokens = r.nodes.filter((x) => x.token.ok).length;
  const legacyGone = r.nodes.filter((x) => x.migration.legacyStateRemoved).length;
  const delays = r.nodes.map((x) => x.rollout.delayMs);
  const delaySpan = Math.max(...delays) - Math.min(...delays);
  const lastToken = Math.max(...r.nodes.map((x) => x.token.updatedAt));
  return [
    {
      ok: converged === n,
      text: `${converged}/${n} nodes run their pool's current OSC (checksum/cloud-config-data)`,
    },
    {
      ok:
        r.migration.legacyLeft.length === 0 &&
        legacyGone === n &&
        r.migration.statesSeen.at(-1) === 'Completed',
      text: `migration ${r.migration.statesSeen.join(' -> ')}: legacy resources removed (${r.migration.legacyLeft.length === 0 ? 'none left' : r.migration.legacyLeft.join(', ')}), downloader state gone from ${legacyGone}/${n} roots`,
    },
    {
      ok: r.migration.legacyAccessSecretDeletes === 1 && (r.migration.cleanupsMetric ?? 1) === 1,
      text: `legacy cleanup ran exactly once (${r.migration.legacyAccessSecretDeletes} DELETE of shoot-access-cloud-config-downloader in the seed's audit log, gardener_osc_migration_cleanups_total ${r.migration.cleanupsMetric ?? 'n/a'})`,
    },
    {
      ok: early.length === 0 && wrongDelay.length === 0,
      text:
        early.length === 0 && wrongDelay.length === 0
          ? `no node applied the kubelet change before its delay (each used its node-delay annotation)`
          : `applied early: ${early.map((x) => x.name).join(', ') || 'none'}; delay differs from the annotation: ${wrongDelay.map((x) => x.name).join(', ') || 'none'}`,
    },
    {
      // the applies follow the delays: they spread as far as the node-delay controller spread the delays
      ok: r.rollout.spanMs >= delaySpan - 500,
      text: `applies spread over ${s(r.rollout.spanMs)} (the delays over ${s(delaySpan)} of the ${r.maxDelaySeconds} s window); at most ${r.rollout.maxKubeletRestartsInOneSecond} kubelet restart(s) in any 1 s bucket`,
    },
    {
      ok: others.length === 0 && kubeletOnce.length === n,
      text: `only the changed unit restarted: kubelet.service once on ${kubeletOnce.length}/${n} nodes, other units on ${others.length}`,
    },
    {
      ok: tokens === n,
      text: `${tokens}/${n} token files hold the rotated token, the last ${s(lastToken - r.tokens.rotatedAt)} after the rotation`,
    },
  ];
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const delayText = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)}s` : '?');
const rel = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)}s` : '?');

export function summaryTable(r: ScenarioResult): string {
  const t0 = r.rollout.secretsChangedAt;
  const rows = [...r.nodes]
    .sort((a, b) => a.rollout.delayMs - b.rollout.delayMs || a.name.localeCompare(b.name))
    .map((x: NodeResult) => [
      x.name,
      x.pool,
      x.zone,
      `+${rel(x.migration.reportedAt - x.migration.nodeInitAt)}`,
      String(x.migration.unitsRestarted.length),
      delayText(x.rollout.delayMs),
      rel(x.rollout.appliedAt - t0),
      x.rollout.restarts.map((u) => u.unit).join(' ') || '-',
      `+${rel(x.token.updatedAt - r.tokens.rotatedAt)}`,
      x.rollout.checksumOk && x.token.ok ? 'ok' : 'FAIL',
    ]);
  const pools = r.pools.map(
    (p) => `${p.name}: ${p.nodes} nodes, secret ${p.secret}, checksum ${p.checksum.slice(0, 12)}`,
  );
  const phases = (['setup', 'legacy', 'migration', 'rollout', 'tokens'] as const)
    .map((p) => `${p} ${rel(r.phases[p].to - r.phases[p].from)}`)
    .join(', ');
  return [
    table(
      [
        'node',
        'pool',
        'zone',
        'migrated in',
        'units started',
        'delay',
        'kubelet change applied',
        'restarted',
        'token file',
        'ok',
      ],
      rows,
    ),
    '',
    'migrated in: from node-init to its pool checksum and a fresh Lease on the node; units started: restarts of the initial apply;',
    "kubelet change applied: its first systemd call, from the OSC secrets' change; token file: updated, from the rotation.",
    '',
    ...pools,
    `phases: ${phases}`,
    `rollout: ${r.rollout.change}; kubelet restarts per second: [${r.rollout.kubeletRestartsPerSecond.join(' ')}]`,
  ].join('\n');
}

const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The rollout as an SVG: one row per node (by delay), from the OSC secrets' change (t = 0): the
 * wait (grey) from the agent queueing the change to its apply, the node's delay (tick), each
 * kubelet restart (dot); below, kubelet restarts per 1 s bucket.
 */
export function rolloutSvg(r: ScenarioResult): string {
  const t0 = r.rollout.secretsChangedAt;
  const nodes = [...r.nodes].sort(
    (a, b) => a.rollout.delayMs - b.rollout.delayMs || a.name.localeCompare(b.name),
  );
  const lastMs = Math.max(
    r.maxDelaySeconds * 1000,
    ...nodes.flatMap((x) => x.rollout.restarts.map((u) => u.at - t0)),
    ...nodes.map((x) => x.rollout.appliedAt - t0),
  );
  const seconds = Math.ceil(lastMs / 1000) + 1;
  const left = 230;
  const right = 30;
  const plot = 640;
  const width = left + plot + right;
  const row = 20;
  const top = 90;
  const histTop = top + nodes.length * row + 40;
  const histHeight = 80;
  const height = histTop + histHeight + 60;
  const x = (ms: number) => left + (Math.max(0, ms) / (seconds * 1000)) * plot;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="20" y="22" font-size="15" font-weight="bold">${esc(`Kubelet configuration rollout: ${nodes.length} nodes, max delay ${r.maxDelaySeconds} s`)}</text>`,
    `<text x="20" y="40" fill="#555">${esc(r.rollout.change)}</text>`,
    `<text x="20" y="56" fill="#555">${esc(`applies spread over ${s(r.rollout.spanMs)}, at most ${r.rollout.maxKubeletRestartsInOneSecond} kubelet restart(s) in any 1 s bucket`)}</text>`,
  );
  for (let sec = 0; sec <= seconds; sec++) {
    const gx = x(sec * 1000).toFixed(1);
    out.push(
      `<line x1="${gx}" y1="${top - 8}" x2="${gx}" y2="${histTop + histHeight}" stroke="${sec % 5 === 0 ? '#ccc' : '#eee'}"/>`,
    );
    if (sec % 5 === 0)
      out.push(`<text x="${gx}" y="${top - 12}" text-anchor="middle" fill="#555">${sec}s</text>`);
  }
  const window = x(r.maxDelaySeconds * 1000).toFixed(1);
  out.push(
    `<line x1="${window}" y1="${top - 8}" x2="${window}" y2="${top + nodes.length * row}" stroke="#c33" stroke-dasharray="4 3"/>`,
    `<text x="${window}" y="${top + nodes.length * row + 14}" text-anchor="middle" fill="#c33">max delay</text>`,
  );
  nodes.forEach((n, i) => {
    const y = top + i * row + row / 2;
    const enq = n.rollout.enqueuedAt - t0;
    const applied = n.rollout.appliedAt - t0;
    out.push(
      `<text x="${left - 8}" y="${y + 4}" text-anchor="end">${esc(`${n.name}  ${n.pool}  ${n.zone}`)}</text>`,
      `<rect x="${x(enq).toFixed(1)}" y="${y - 4}" width="${Math.max(1, x(applied) - x(enq)).toFixed(1)}" height="8" fill="#ddd"><title>${esc(`${n.name}: waited ${delayText(n.rollout.enqueuedDelayMs)} (delay ${delayText(n.rollout.delayMs)}), applied at ${rel(applied)}`)}</title></rect>`,
      `<line x1="${x(enq + n.rollout.delayMs).toFixed(1)}" y1="${y - 7}" x2="${x(enq + n.rollout.delayMs).toFixed(1)}" y2="${y + 7}" stroke="#333"/>`,
    );
    for (const u of n.rollout.restarts) {
      out.push(
        `<circle cx="${x(u.at - t0).toFixed(1)}" cy="${y}" r="5" fill="${u.unit === 'kubelet.service' ? '#2a6fdb' : '#e08a00'}"><title>${esc(`${n.name}: restart ${u.unit} at ${rel(u.at - t0)}`)}</title></circle>`,
      );
    }
  });
  const buckets = r.rollout.kubeletRestartsPerSecond;
  const most = Math.max(1, ...buckets);
  out.push(`<text x="${left - 8}" y="${histTop + 12}" text-anchor="end">kubelet restarts / 1 s</text>`);
  buckets.forEach((count, sec) => {
    if (!count) return;
    const h = (count / most) * histHeight;
    const bx = x(sec * 1000);
    out.push(
      `<rect x="${(bx + 1).toFixed(1)}" y="${(histTop + histHeight - h).toFixed(1)}" width="${(x(1000) - x(0) - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="#2a6fdb"/>`,
      `<text x="${(bx + (x(1000) - x(0)) / 2).toFixed(1)}" y="${(histTop + histHeight - h - 3).toFixed(1)}" text-anchor="middle" font-size="10">${count}</text>`,
    );
  });
  out.push(
    `<line x1="${left}" y1="${histTop + histHeight}" x2="${left + plot}" y2="${histTop + histHeight}" stroke="#333"/>`,
    `<text x="20" y="${height - 28}" fill="#555">${esc('t = 0: the OSC secrets changed. Grey: the agent queued the change and waits; tick: the end of its delay;')}</text>`,
    `<text x="20" y="${height - 12}" fill="#555">${esc('dot: kubelet.service restarted (orange: another unit). Rows sorted by delay.')}</text>`,
    '</svg>',
    '',
  );
  return out.join('\n');
}

/** `[  12.3s] text` lines for the terminal. */
export function formatEntry(e: TimelineEntry): string {
  const stamp = `[${(e.t / 1000).toFixed(1).padStart(6)}s]`;
  if (e.kind === 'heading') return `\n${stamp} == ${e.text} ==`;
  if (e.kind === 'node') return `${stamp}   ${(e.node ?? '').padEnd(8)} ${e.text}`;
  if (e.kind === 'progress') return `${stamp}   ... ${e.text}`;
  return `${stamp} ${e.text}`;
}
