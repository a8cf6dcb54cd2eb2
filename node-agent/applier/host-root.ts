/**
 * Every host path of an apply resolves under one root directory (`/` on a node, a temp dir in tests
 * and demos). A symlink inside the root must not lead a write or a delete out of it, so before
 * touching a path the nearest existing ancestor's real path is checked to lie within the root.
 */
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { hostPathProblem, PATH } from '../../api/index.js';
import { ensureDir } from '../fs/ensure-dir.js';

/** Where systemd looks for unit files; a unit exists when one of them has it. */
const UNIT_DIRS = [
  PATH.systemdUnitDir,
  '/run/systemd/system',
  '/usr/lib/systemd/system',
  '/lib/systemd/system',
];

export async function pathExists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR')
      return false;
    throw e;
  }
}

export class HostRoot {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The absolute path of host path `hostPath` (absolute, normalised) under the root. */
  path(hostPath: string): string {
    const problem = hostPathProblem(hostPath);
    if (problem) throw new Error(`host path ${JSON.stringify(hostPath)} ${problem}`);
    return join(this.root, hostPath);
  }

  unitFile(unit: string): string {
    return join(this.path(PATH.systemdUnitDir), unit);
  }

  dropInDir(unit: string): string {
    return `${this.unitFile(unit)}.d`;
  }

  dropInFile(unit: string, dropIn: string): string {
    return join(this.dropInDir(unit), dropIn);
  }

  async unitExists(unit: string): Promise<boolean> {
    for (const dir of UNIT_DIRS) if (await pathExists(join(this.path(dir), unit))) return true;
    return false;
  }

  /** The host path (`/etc/a`) of an absolute path under the root. */
  hostPathOf(absolute: string): string {
    const rel = relative(this.root, absolute);
    return rel === '' ? '/' : `/${rel}`;
  }

  /** The nearest ancestor of `absolute` that exists (a directory, if all is well). */
  async nearestExisting(absolute: string): Promise<string> {
    let existing = dirname(absolute);
    while (!(await pathExists(existing))) existing = dirname(existing);
    return existing;
  }

  /** Why `absolute` (a path under the root) escapes it through a symlink, or undefined. */
  async containmentProblem(absolute: string): Promise<string | undefined> {
    if (this.root === sep) return undefined;
    const existing = await this.nearestExisting(absolute);
    const real = await realpath(existing).catch(() => undefined);
    if (real === undefined) return `${this.hostPathOf(existing)} is a symlink that leads nowhere`;
    const realRoot = await realpath(this.root);
    const rel = relative(realRoot, real);
    if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
      return `${this.hostPathOf(absolute)} resolves outside the root ${this.root} (through a symlink)`;
    }
    return undefined;
  }

  /** Checks that `absolute` (a path under the root) does not escape it through a symlink. */
  async assertContained(absolute: string): Promise<void> {
    const problem = await this.containmentProblem(absolute);
    if (problem) throw new Error(problem);
  }

  /** Makes the parent directories of `absolute` (0755) after checking they stay inside the root. */
  async prepareParent(absolute: string): Promise<void> {
    await this.assertContained(absolute);
    await ensureDir(dirname(absolute));
  }
}
