/**
 * The safety rules of a real node (docs/real-node.md#safety-rules-enforced-in-code), checked in code before
 * anything touches a container root. The same rules as node.sh, which enforces them again for
 * whatever it boots, cleans or removes:
 *
 *  - the base directory of all node roots is not `/` (device and inode) and not under /tmp, where a
 *    systemd that escaped its root would wipe everybody's files;
 *  - a root resolves (symlinks followed) strictly inside the base, is not `/`, and holds the marker
 *    `/.container-root-marker`;
 *  - a node directory to be removed lies strictly inside the base and holds `.real-node-dir`;
 *  - node names start with `real-node-`, so no other machine's cgroup or /run entry is touched.
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';

export const ROOT_MARKER = '.container-root-marker';
export const NODE_DIR_MARKER = '.real-node-dir';
export const NODE_NAME_PATTERN = /^real-node-[a-z0-9][a-z0-9-]{0,40}$/;
/** Where node roots live unless REAL_NODE_BASE says otherwise: outside /tmp, on disk. */
export const DEFAULT_BASE = '/var/tmp/gardener-osc-real-node';

export class UnsafeRootError extends Error {
  constructor(message: string) {
    super(`refusing: ${message}`);
    this.name = 'UnsafeRootError';
  }
}

function resolved(path: string, what: string): string {
  try {
    return realpathSync(path);
  } catch {
    throw new UnsafeRootError(`${what} ${path} does not exist`);
  }
}

function isSlash(path: string): boolean {
  const a = statSync(path);
  const slash = statSync('/');
  return a.dev === slash.dev && a.ino === slash.ino;
}

function strictlyInside(path: string, parent: string): boolean {
  return path.startsWith(parent.endsWith(sep) ? parent : parent + sep) && path.length > parent.length + 1;
}

function isPlainFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** The resolved base after refusing `/` and anything under /tmp. */
export function guardBase(base: string): string {
  const real = resolved(base, 'base');
  if (isSlash(real)) throw new UnsafeRootError(`base ${base} is /`);
  const tmp = realpathSync('/tmp');
  if (real === tmp || strictlyInside(real, tmp))
    throw new UnsafeRootError(`base ${base} is under /tmp (a systemd there could wipe it; use /var/tmp/...)`);
  return real;
}

/** The resolved root after refusing `/`, anything outside the base and a tree without the marker. */
export function guardRoot(root: string, base: string): string {
  const realBase = guardBase(base);
  const real = resolved(root, 'root');
  if (isSlash(real)) throw new UnsafeRootError(`root ${root} is /`);
  if (!strictlyInside(real, realBase)) throw new UnsafeRootError(`root ${root} is not inside ${realBase}`);
  if (!isPlainFile(join(real, ROOT_MARKER))) throw new UnsafeRootError(`root ${root} has no ${ROOT_MARKER}`);
  return real;
}

/** The resolved node directory after refusing anything that is not one of ours inside the base. */
export function guardNodeDir(dir: string, base: string): string {
  const realBase = guardBase(base);
  const real = resolved(dir, 'node directory');
  if (isSlash(real)) throw new UnsafeRootError(`node directory ${dir} is /`);
  if (!strictlyInside(real, realBase))
    throw new UnsafeRootError(`node directory ${dir} is not inside ${realBase}`);
  if (!isPlainFile(join(real, NODE_DIR_MARKER)))
    throw new UnsafeRootError(`node directory ${dir} has no ${NODE_DIR_MARKER}`);
  return real;
}

export function guardNodeName(name: string): string {
  if (!NODE_NAME_PATTERN.test(name))
    throw new UnsafeRootError(`node name ${JSON.stringify(name)} does not match ${NODE_NAME_PATTERN}`);
  return name;
}
