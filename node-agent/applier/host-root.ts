/**
 * Every host path of an apply resolves under one root directory (`/` on a node, a temp dir in tests
 * and demos). A symlink inside the root must not lead a write or a delete out of it, nor into the
 * agent's state directory, so before touching a path the nearest existing ancestor's real path is
 * checked to lie within the root and outside that directory.
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

/** `path` is `dir` or lies below it (both absolute, normalised). */
function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === sep ? dir : `${dir}${sep}`);
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

  private realRootPromise?: Promise<string>;

  /** The root's real path, resolved once per HostRoot (one per apply). */
  private realRoot(): Promise<string> {
    this.realRootPromise ??= realpath(this.root);
    return this.realRootPromise;
  }

  /**
   * Why `absolute` (a path under the root) must not be touched, or undefined: it escapes the root
   * through a symlink, or a symlink inside the root leads it into the agent's state directory
   * (`/var/lib/gardener-node-agent`: its credentials, identity and progress), which only a path
   * that names that directory itself may reach.
   */
  async containmentProblem(absolute: string): Promise<string | undefined> {
    const existing = await this.nearestExisting(absolute);
    const real = await realpath(existing).catch(() => undefined);
    if (real === undefined) {
      if (this.root === sep) return undefined;
      return `${this.hostPathOf(existing)} is a symlink that leads nowhere`;
    }
    const realRoot = await this.realRoot();
    const rel = relative(realRoot, real);
    if (this.root !== sep && (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))) {
      return `${this.hostPathOf(absolute)} resolves outside the root ${this.root} (through a symlink)`;
    }
    return this.stateDirectoryDetour(absolute, join(real, relative(existing, absolute)));
  }

  private async stateDirectoryDetour(absolute: string, resolved: string): Promise<string | undefined> {
    const literal = this.hostPathOf(absolute);
    if (isWithin(literal, PATH.nodeAgentBaseDir)) return undefined;
    const stateDir = this.path(PATH.nodeAgentBaseDir);
    const realStateDir = await realpath(stateDir).catch(() => stateDir);
    if (!isWithin(resolved, realStateDir)) return undefined;
    return `${literal} leads into the node agent's state directory ${PATH.nodeAgentBaseDir} through a symlink`;
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
