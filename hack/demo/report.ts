/**
 * What the demo shows at the end, from a ScenarioResult: the checks the issue asks for, the summary
 * table (one row per node) and the rollout as an SVG chart (rollout-svg.ts). Pure functions.
 */
import { NODE_AGENT_USER_PREFIX, nodeAgentUserName } from '../../api/index.js';
import type { NodeInRollout, NodeResult, RolloutChange, ScenarioResult, TimelineEntry } from './scenario.js';

export interface Check {
  readonly ok: boolean;
  readonly text: string;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The outcomes the demo promises; test/e2e asserts the same facts one by one. */
export function checks(r: ScenarioResult): Check[] {
  const n = r.nodes.length;
  const converged = r.nodes.filter((x) => x.rollout.checksumOk).length;
  const ownIdentity = r.nodes.filter((x) => x.limits.identity === nodeAgentUserName(x.name)).length;
  const limited = r.nodes.filter((x) => x.limits.unexpected.length === 0).length;
  const legacyGone = r.nodes.filter((x) => x.migration.legacyStateRemoved).length;
  const common: Check[] = [
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
  ];
  const rollout = r.rollout.mode === 'healthy' ? healthyChecks(r) : brokenChecks(r);
  return [
    ...common,
    ...rollout,
    {
      ok: ownIdentity === n && limited === n,
      text: `${ownIdentity}/${n} agents run with their own identity (${NODE_AGENT_USER_PREFIX}<node>); with it ${limited}/${n} got exactly the ${r.limits.probes.length} expected answers: their own pool's OSC secret and Node allowed, other pools, other Nodes, taints, its own labels and rollout permission, Leases and Events denied${limited === n ? '' : ` (${r.nodes.flatMap((x) => x.limits.unexpected.map((u) => `${x.name}: ${u}`)).join('; ')})`}`,
    },
  ];
}

const inRollout = (r: ScenarioResult, i: number) =>
  r.nodes.map((x) => x.rollout.changes[i]).filter((c): c is NodeInRollout => c !== undefined);

/** Every pool's canary (of the pools with nodes: one without completes at once): at most `canary` nodes, one zone. */
function canaryCheck(r: ScenarioResult, change: RolloutChange): Check {
  const canaries = change.waves.filter((w) => w.kind === 'canary');
  const withNodes = [...change.targets.keys()].filter((p) => r.nodes.some((x) => x.pool === p)).length;
  const zone = (name: string) => r.nodes.find((x) => x.name === name)?.zone;
  const bad = canaries.filter(
    (w) => w.nodes.length > r.rollout.canary || new Set(w.nodes.map(zone)).size > 1,
  );
  return {
    ok: canaries.length === withNodes && bad.length === 0,
    text: `${change.label}: a canary in each of ${canaries.length}/${withNodes} pools with nodes, at most ${r.rollout.canary} node(s) in one zone (${canaries.map((w) => `${w.pool}: ${w.nodes.join(', ')}`).join('; ')})`,
  };
}

/** No node of a wave got the change before every node of the wave before passed the gate. */
function gateCheck(r: ScenarioResult, i: number): Check {
  const change = r.rollout.changes[i]!;
  const nodes = new Map(inRollout(r, i).map((x) => [x.node, x]));
  const early: string[] = [];
  for (const wave of change.waves) {
    const before = change.waves.find((w) => w.pool === wave.pool && w.wave === wave.wave - 1);
    if (!before) continue;
    const passed = Math.max(...before.nodes.map((x) => nodes.get(x)?.reportedAt ?? Number.POSITIVE_INFINITY));
    for (const x of wave.nodes) {
      const permitted = nodes.get(x)?.permittedAt;
      // the settle time counts from when the seed saw the report; the demo polls as often
      if (permitted === undefined || permitted < passed + r.rollout.settleMs - 500) early.push(x);
    }
  }
  return {
    ok: early.length === 0,
    text:
      early.length === 0
        ? `${change.label}: every wave began only after the wave before reported success and stayed healthy for the ${s(r.rollout.settleMs)} settle time`
        : `${change.label}: got the change before the wave before passed the gate: ${early.join(', ')}`,
  };
}

function healthyChecks(r: ScenarioResult): Check[] {
  const n = r.nodes.length;
  const change = r.rollout.changes[0]!;
  const nodes = inRollout(r, 0);
  const others = nodes.filter((x) => x.restarts.some((u) => u.unit !== 'kubelet.service'));
  const kubeletOnce = nodes.filter(
    (x) => x.restarts.filter((u) => u.unit === 'kubelet.service').length === 1,
  );
  const succeeded = nodes.filter((x) => x.result === 'Succeeded').length;
  return [
    canaryCheck(r, change),
    gateCheck(r, 0),
    {
      ok: succeeded === n && [...change.pools.values()].every((p) => p.phase === 'Completed'),
      text: `${succeeded}/${n} nodes reported the kubelet change Succeeded; every pool's rollout completed (${[...change.pools.values()].map((p) => p.pool).join(', ')})`,
    },
    {
      ok: others.length === 0 && kubeletOnce.length === n,
      text: `only the changed unit restarted: kubelet.service once on ${kubeletOnce.length}/${n} nodes, other units on ${others.length}`,
    },
  ];
}

function brokenChecks(r: ScenarioResult): Check[] {
  const n = r.nodes.length;
  const [bad, fix] = r.rollout.changes as [RolloutChange, RolloutChange];
  const limit = r.rollout.canary * bad.targets.size;
  const applied = r.rollout.bad?.applied ?? Number.NaN;
  const failed = inRollout(r, 0).filter((x) => x.result === 'Failed');
  const fixNodes = new Map(inRollout(r, 1).map((x) => [x.node, x]));
  const notFirst = failed.filter((f) => {
    const at = fixNodes.get(f.node)?.permittedAt ?? Number.POSITIVE_INFINITY;
    // a node that already ran the previous spec never waits for a wave: only those that get the fix count
    return inRollout(r, 1).some(
      (x) =>
        x.pool === f.pool &&
        x.wave !== undefined &&
        !failed.some((y) => y.node === x.node) &&
        (x.permittedAt ?? Number.POSITIVE_INFINITY) < at,
    );
  });
  const fixed = inRollout(r, 1).filter((x) => x.result === 'Succeeded' || x.result === undefined).length;
  return [
    {
      ok: applied <= limit && [...bad.pools.values()].every((p) => p.phase === 'Halted'),
      text: `bad configuration applied on ${applied} of ${n} nodes (at most canary ${r.rollout.canary} × ${bad.targets.size} pools = ${limit}); halted: ${
        [...bad.pools.values()]
          .filter((p) => p.phase === 'Halted')
          .map((p) => p.pool)
          .join(', ') || 'none'
      }`,
    },
    canaryCheck(r, bad),
    {
      ok: failed.length === applied && failed.every((f) => f.reason === 'UnitNotActive'),
      text: `the ${failed.length} node(s) that applied it reported Failed: ${failed.map((f) => `${f.node} ${f.reason}`).join(', ') || 'none'}`,
    },
    {
      ok: notFirst.length === 0 && [...fix.pools.values()].every((p) => p.phase === 'Completed'),
      text: `the fix (the previous spec) reached the failed nodes first (${notFirst.length === 0 ? 'every one' : `not ${notFirst.map((x) => x.node).join(', ')}`}) and completed in every pool; ${fixed}/${n} nodes healthy`,
    },
    gateCheck(r, 1),
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

const rel = (ms: number | undefined) =>
  ms !== undefined && Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)}s` : '-';

export function summaryTable(r: ScenarioResult): string {
  const t0 = r.rollout.secretsChangedAt;
  const broken = r.rollout.mode === 'broken';
  const at = (ms: number | undefined) => (ms === undefined ? '-' : rel(ms - t0));
  const rows = [...r.nodes]
    .sort(
      (a, b) =>
        a.pool.localeCompare(b.pool) ||
        (a.rollout.changes[0]?.permittedAt ?? Number.POSITIVE_INFINITY) -
          (b.rollout.changes[0]?.permittedAt ?? Number.POSITIVE_INFINITY) ||
        a.name.localeCompare(b.name),
    )
    .map((x: NodeResult) => {
      const first = x.rollout.changes[0];
      const fix = x.rollout.changes[1];
      return [
        x.name,
        x.pool,
        x.zone,
        `+${rel(x.migration.reportedAt - x.migration.nodeInitAt)}`,
        String(x.migration.unitsRestarted.length),
        first?.wave === undefined ? '-' : String(first.wave),
        at(first?.permittedAt),
        first?.result ?? 'held',
        first?.restarts.map((u) => u.unit).join(' ') || '-',
        ...(broken
          ? [
              fix?.wave === undefined ? '-' : `${fix.wave} at ${at(fix.permittedAt)}`,
              fix?.result ?? 'as before',
            ]
          : []),
        `${x.limits.probes - x.limits.unexpected.length}/${x.limits.probes}`,
        x.rollout.checksumOk && x.limits.unexpected.length === 0 ? 'ok' : 'FAIL',
      ];
    });
  const pools = r.pools.map(
    (p) => `${p.name}: ${p.nodes} nodes, secret ${p.secret}, checksum ${p.checksum.slice(0, 12)}`,
  );
  const phases = (['setup', 'legacy', 'migration', 'rollout', 'limits'] as const)
    .map((p) => `${p} ${rel(r.phases[p].to - r.phases[p].from)}`)
    .join(', ');
  const label = broken ? 'bad change' : 'kubelet change';
  return [
    table(
      [
        'node',
        'pool',
        'zone',
        'migrated in',
        'units started',
        'wave',
        'permitted',
        label,
        'restarted',
        ...(broken ? ['fix: wave at', 'fix'] : []),
        'as expected',
        'ok',
      ],
      rows,
    ),
    '',
    'migrated in: from node-init to its pool checksum and a fresh Lease on the node; units started: restarts of the initial apply;',
    `wave: the wave of the rollout gate that took the node; permitted: when its Node got the ${label}, from the OSC secrets' change;`,
    `${label}: what the agent reported (held: the gate never let it out to the node);`,
    "as expected: requests with the node's own identity that got the expected answer.",
    '',
    ...pools,
    `phases: ${phases}`,
    `rollout: ${r.rollout.change}; kubelet restarts per second: [${r.rollout.kubeletRestartsPerSecond.join(' ')}]`,
    ...(r.rollout.bad
      ? [
          `bad configuration applied on ${r.rollout.bad.applied} of ${r.rollout.bad.nodes} nodes; rollout halted`,
        ]
      : []),
  ].join('\n');
}

export { rolloutSvg } from './rollout-svg.js';

/** `[  12.3s] text` lines for the terminal. */
export function formatEntry(e: TimelineEntry): string {
  const stamp = `[${(e.t / 1000).toFixed(1).padStart(6)}s]`;
  if (e.kind === 'heading') return `\n${stamp} == ${e.text} ==`;
  if (e.kind === 'node') return `${stamp}   ${(e.node ?? '').padEnd(8)} ${e.text}`;
  if (e.kind === 'progress') return `${stamp}   ... ${e.text}`;
  return `${stamp} ${e.text}`;
}
