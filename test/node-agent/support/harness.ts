/**
 * Shared by every node-agent test: sets NODE_AGENT_REFUSE_HOST_ROOT=1 (also for every child
 * process), hands out temp dirs that are removed after each test, and snapshots directory trees.
 */
import {
  accessSync,
  constants,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

process.env.NODE_AGENT_REFUSE_HOST_ROOT = '1';

/** tmpfs when there is one: every apply fsyncs each step, which costs ~5 ms per file on a disk. */
function tempBase(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

export function useTempDirs(): (prefix?: string) => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix = 'gna-test-') => {
    const dir = mkdtempSync(join(tempBase(), prefix));
    dirs.push(dir);
    return dir;
  };
}

export type TreeEntry =
  | { readonly type: 'file'; readonly mode: string; readonly content: string }
  | { readonly type: 'dir'; readonly mode: string }
  | { readonly type: 'symlink'; readonly target: string };

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/** Every entry below `root` by relative path: files with mode and content, dirs with mode. */
export function snapshotTree(
  root: string,
  exclude: (rel: string) => boolean = () => false,
): Record<string, TreeEntry> {
  const out: Record<string, TreeEntry> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(root, path);
      if (exclude(rel)) continue;
      const s = lstatSync(path);
      if (s.isSymbolicLink()) out[rel] = { type: 'symlink', target: readlinkSync(path) };
      else if (s.isDirectory()) {
        out[rel] = { type: 'dir', mode: octal(s.mode) };
        walk(path);
      } else out[rel] = { type: 'file', mode: octal(s.mode), content: readFileSync(path, 'utf8') };
    }
  };
  walk(root);
  return out;
}

export function fileAt(root: string, hostPath: string): { mode: string; content: string } {
  const path = join(root, hostPath);
  return { mode: octal(lstatSync(path).mode), content: readFileSync(path, 'utf8') };
}
