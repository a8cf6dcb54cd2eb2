/**
 * The text form of a plan: one summary line per pool first (what a reviewer reads), then per
 * changed pool its units with their causes and its files with decoded unified diffs.
 */
import { UNIT } from '../../api/index.js';
import { causeText, disruptionSumText } from './disruption-view.js';
import { reasonText } from './reason-text.js';
import type { FileView, PlanView, PoolView, UnitDisruptionView, UnitView } from './view.js';

const short = (checksum: string | undefined) => (checksum ? checksum.slice(0, 8) : '-');

function header(pool: PoolView): string {
  const parts = [`${pool.name} (${pool.change})`];
  if (pool.checksum.from !== pool.checksum.to)
    parts.push(`checksum ${short(pool.checksum.from)} → ${short(pool.checksum.to)}`);
  const secret = pool.secret;
  if (secret && secret.from !== secret.to) parts.push(`secret ${secret.from ?? '-'} → ${secret.to ?? '-'}`);
  else if (secret?.to) parts.push(`secret ${secret.to}`);
  return parts.join('  ');
}

function disruptionLines(unit: UnitView, d: UnitDisruptionView, withDiff: boolean): string[] {
  // padded as a column, but never glued to the name (DrainAndRestart is longer than the column)
  const lines = [`    ${d.action.padEnd(12)} ${unit.name}`];
  for (const cause of d.causes) {
    const text = causeText(cause);
    const why = text.includes(cause.why) ? '' : `, ${cause.why}`;
    lines.push(`              ← ${text}: ${cause.action}${why}`);
  }
  if (withDiff) for (const reason of unit.reasons) if (reason.diff) lines.push(...indented(reason.diff, 16));
  return lines;
}

function unitLines(unit: UnitView, withDiff: boolean): string[] {
  if (unit.disruption) return disruptionLines(unit, unit.disruption, withDiff);
  const self = unit.name === UNIT.nodeAgent ? '  (the agent restarts itself before the other units)' : '';
  const lines = [`    ${unit.action.padEnd(8)}${unit.name}${self}`];
  for (const reason of unit.reasons) {
    lines.push(`              ← ${reasonText(reason)}`);
    if (withDiff && reason.diff) lines.push(...indented(reason.diff, 16));
  }
  return lines;
}

const indented = (diff: string, by: number) =>
  diff
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `${' '.repeat(by)}${l}`);

function fileLines(file: FileView, withDiff: boolean): string[] {
  const mode =
    file.mode.from && file.mode.to && file.mode.from !== file.mode.to
      ? `${file.mode.from} → ${file.mode.to}`
      : (file.mode.to ?? file.mode.from ?? '');
  const lines = [`    ${file.change.padEnd(8)}${file.path}  ${mode}  ${file.summary}`];
  if (!withDiff) return lines;
  if (file.redacted) {
    const size = (n: number | undefined) => (n === undefined ? '-' : `${n}`);
    lines.push(
      `      (content redacted: ${file.redacted}; ${size(file.bytes?.from)} → ${size(file.bytes?.to)} bytes)`,
    );
  } else if (file.diff) {
    lines.push(
      ...file.diff
        .replace(/\n$/, '')
        .split('\n')
        .map((l) => `      ${l}`),
    );
  }
  return lines;
}

function poolDetails(pool: PoolView): string[] {
  const lines = [header(pool)];
  if (pool.units.length > 0) {
    lines.push(`  units${pool.daemonReload ? ' (after a daemon-reload)' : ''}:`);
    for (const unit of pool.units) lines.push(...unitLines(unit, pool.change === 'changed'));
  } else if (pool.daemonReload) {
    // a unit file or drop-in that is one of the files: systemd reloads, no unit changes
    lines.push('  units: none changed (a daemon-reload for the unit configuration among the files)');
  }
  if (pool.files.length > 0) {
    lines.push('  files:');
    // a new pool or a first apply writes everything: list it, diffs would repeat the whole OSC
    for (const file of pool.files) lines.push(...fileLines(file, pool.change === 'changed'));
  }
  if (pool.disruption) lines.push(`  disruption: ${disruptionSumText(pool.disruption)}`);
  if (pool.rollout) lines.push(`  rollout: ${pool.rollout.text}`);
  return lines;
}

export function formatPlanText(view: PlanView): string {
  if (view.pools.length === 0) return 'no worker pools\n';
  const width = Math.max(...view.pools.map((p) => p.name.length));
  const lines = view.pools.map((p) => `${`${p.name}:`.padEnd(width + 1)} ${p.summary}`);
  for (const pool of view.pools.filter((p) => p.changed && p.change !== 'removed')) {
    lines.push('', ...poolDetails(pool));
  }
  return `${lines.join('\n')}\n`;
}
