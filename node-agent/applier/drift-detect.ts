/**
 * Drift detection: the node compared with what the last apply left on it (drift-expected.ts), on a
 * host root. Files, unit files and drop-ins by existence, type, permission bits, owner and bytes;
 * extra drop-ins in the directories of the units the agent manages; masking (a unit file that is a
 * symlink to /dev/null under /etc or /run); and, through systemd where the backend can tell,
 * enablement and whether a unit the apply started still runs. Nothing is written. Paths of the
 * declared exclusions (drift-exclusions.ts) and drifts adopted earlier (drift-adopted.ts) are left
 * out. Reads with lstat: a symlink is reported as one, never followed out of the root.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type OperatingSystemConfig, PATH } from '../../api/index.js';
import type { Drift, DriftOrigin } from '../planner/drift.js';
import type { Systemd } from '../systemd/systemd.js';
import { adoptedFilter, readAdoptions } from './drift-adopted.js';
import { driftExclusion } from './drift-exclusions.js';
import { type ExpectedUnit, expectedNode } from './drift-expected.js';
import { UNIT_FILE_MODE } from './execute-step.js';
import type { HostRoot } from './host-root.js';
import { notRunning } from './unit-not-running.js';

export interface DetectOptions {
  readonly host: HostRoot;
  /** The OSC as the last apply applied it (for this host, with containerd's drop-in). */
  readonly osc: OperatingSystemConfig;
  /** Without it, only the file system is compared. */
  readonly systemd?: Pick<Systemd, 'unitStatus' | 'unitFileState'>;
  /** The owner every written file has: the agent's (root on a node). Default: this process's. */
  readonly owner?: { readonly uid: number; readonly gid: number };
}

export function shortHash(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

async function lstatIfExists(path: string) {
  try {
    return await lstat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

interface Target {
  readonly object: 'file' | 'unit-file' | 'drop-in';
  readonly path: string;
  readonly unit?: string;
  readonly mode: number;
  readonly bytes?: Buffer;
  readonly origin: DriftOrigin;
}

async function typeText(absolute: string, isSymlink: boolean, isDirectory: boolean): Promise<string> {
  if (isSymlink) return `symlink to ${await readlink(absolute).catch(() => '?')}`;
  return isDirectory ? 'directory' : 'not a regular file';
}

async function compareFile(host: HostRoot, t: Target, owner: { uid: number; gid: number }): Promise<Drift[]> {
  const base = { object: t.object, path: t.path, ...(t.unit ? { unit: t.unit } : {}), origin: t.origin };
  const absolute = host.path(t.path);
  const stat = await lstatIfExists(absolute);
  const expectedContent = t.bytes ? shortHash(t.bytes) : 'a regular file';
  if (!stat) return [{ ...base, kind: 'missing', expected: expectedContent, actual: 'absent' }];
  if (!stat.isFile()) {
    const actual = await typeText(absolute, stat.isSymbolicLink(), stat.isDirectory());
    return [{ ...base, kind: 'type', expected: 'a regular file', actual }];
  }
  const drifts: Drift[] = [];
  if (t.bytes) {
    const bytes = await readFile(absolute);
    if (!bytes.equals(t.bytes))
      drifts.push({
        ...base,
        kind: 'content',
        expected: shortHash(t.bytes),
        actual: shortHash(bytes),
        actualContent: bytes.toString('base64'),
      });
  }
  if ((stat.mode & 0o7777) !== t.mode)
    drifts.push({ ...base, kind: 'mode', expected: octal(t.mode), actual: octal(stat.mode) });
  if (stat.uid !== owner.uid || stat.gid !== owner.gid)
    drifts.push({
      ...base,
      kind: 'owner',
      expected: `${owner.uid}:${owner.gid}`,
      actual: `${stat.uid}:${stat.gid}`,
    });
  return drifts;
}

function unitTargets(unit: ExpectedUnit): Target[] {
  const targets: Target[] = [];
  const file = join(PATH.systemdUnitDir, unit.name);
  if (unit.content !== undefined)
    targets.push({
      object: 'unit-file',
      path: file,
      unit: unit.name,
      mode: UNIT_FILE_MODE,
      bytes: Buffer.from(unit.content, 'utf8'),
      origin: unit.origin,
    });
  for (const d of unit.dropIns)
    targets.push({
      object: 'drop-in',
      path: join(`${file}.d`, d.name),
      unit: unit.name,
      mode: UNIT_FILE_MODE,
      bytes: Buffer.from(d.content, 'utf8'),
      origin: d.origin,
    });
  return targets;
}

async function extraDropIns(host: HostRoot, unit: ExpectedUnit): Promise<Drift[]> {
  const dir = join(PATH.systemdUnitDir, `${unit.name}.d`);
  let names: string[];
  try {
    names = await readdir(host.path(dir));
  } catch {
    return [];
  }
  const known = new Set(unit.dropIns.map((d) => d.name));
  const drifts: Drift[] = [];
  for (const name of names.filter((n) => n.endsWith('.conf') && !known.has(n)).sort()) {
    const path = join(dir, name);
    const bytes = await readFile(host.path(path)).catch(() => undefined);
    drifts.push({
      object: 'drop-in',
      kind: 'extra-drop-in',
      path,
      unit: unit.name,
      origin: 'node',
      expected: 'absent',
      actual: bytes ? shortHash(bytes) : 'present',
      ...(bytes ? { actualContent: bytes.toString('base64') } : {}),
    });
  }
  return drifts;
}

/** `systemctl mask` writes a symlink to /dev/null under /etc (or /run for --runtime). */
async function maskedBy(host: HostRoot, unit: ExpectedUnit): Promise<string | undefined> {
  const dirs =
    unit.content === undefined ? [PATH.systemdUnitDir, '/run/systemd/system'] : ['/run/systemd/system'];
  for (const dir of dirs) {
    const path = join(dir, unit.name);
    const absolute = host.path(path);
    const stat = await lstatIfExists(absolute);
    if (stat?.isSymbolicLink() && (await readlink(absolute).catch(() => '')) === '/dev/null') return path;
  }
  return undefined;
}

async function unitState(
  unit: ExpectedUnit,
  systemd: NonNullable<DetectOptions['systemd']>,
  masked: boolean,
): Promise<Drift[]> {
  const base = { object: 'unit' as const, unit: unit.name, origin: unit.origin };
  const drifts: Drift[] = [];
  if (systemd.unitFileState) {
    const state = await systemd.unitFileState(unit.name);
    if (state.startsWith('masked') && !masked)
      drifts.push({ ...base, kind: 'masked', expected: 'not masked', actual: state });
    else if (unit.enable && state === 'disabled')
      drifts.push({ ...base, kind: 'enablement', expected: 'enabled', actual: state });
    else if (!unit.enable && state === 'enabled')
      drifts.push({ ...base, kind: 'enablement', expected: 'disabled', actual: state });
  }
  if (unit.shouldRun) {
    const status = await systemd.unitStatus(unit.name);
    if (status.loadState !== 'not-found' && notRunning(status))
      drifts.push({ ...base, kind: 'not-running', expected: 'active', actual: status.activeState });
  }
  return drifts;
}

/** Every drift of the node from `osc`, in a stable order: files, then units in OSC order. */
export async function detectDrift(options: DetectOptions): Promise<Drift[]> {
  const { host } = options;
  const owner = options.owner ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const expected = expectedNode(options.osc);
  const drifts: Drift[] = [];
  const targets: Target[] = [
    ...expected.files.map((f): Target => ({ object: 'file', ...f })),
    ...expected.units.flatMap(unitTargets),
  ];
  for (const t of targets) if (!driftExclusion(t.path)) drifts.push(...(await compareFile(host, t, owner)));
  for (const unit of expected.units) {
    drifts.push(...(await extraDropIns(host, unit)).filter((d) => !driftExclusion(d.path ?? '')));
    const mask = await maskedBy(host, unit);
    if (mask)
      drifts.push({
        object: 'unit',
        kind: 'masked',
        path: mask,
        unit: unit.name,
        origin: unit.origin,
        expected: 'not masked',
        actual: `${mask} -> /dev/null`,
      });
    if (options.systemd) drifts.push(...(await unitState(unit, options.systemd, mask !== undefined)));
  }
  return drifts.filter(adoptedFilter(await readAdoptions(host)));
}
