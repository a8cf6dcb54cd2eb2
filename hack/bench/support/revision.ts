/**
 * A program of this repository as it was at a git revision, so one benchmark run can measure the
 * code before and after a change on the same machine at the same time: the revision's files are
 * exported with `git archive` into a temp dir (the repository is only read), the installed
 * node_modules are linked in, and the entry point is bundled with esbuild (packages stay external)
 * into compiled JavaScript, as a deployment runs it. The revision must need the same packages as
 * the working tree (they are not installed again).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../../..');

export interface Program {
  /** What ran: a revision (`main`, `abc1234`) with its commit, or `working tree`. */
  readonly label: string;
  /** The compiled entry point (ESM). */
  readonly file: string;
  remove(): void;
}

/** The full commit of a revision; throws naming the revision when git does not know it. */
export function commitOf(revision: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--verify', `${revision}^{commit}`], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch {
    throw new Error(`git does not know the revision "${revision}"`);
  }
}

async function bundle(sourceRoot: string, entry: string, outDir: string): Promise<string> {
  const esbuild = await import('esbuild');
  const outfile = join(outDir, `${basename(entry, '.ts')}.mjs`);
  symlinkSync(join(ROOT, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  await esbuild.build({
    entryPoints: [join(sourceRoot, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    // what the program finds next to its entry point (package.json, examples/) stays where it was
    define: { 'import.meta.dirname': JSON.stringify(dirname(join(sourceRoot, entry))) },
    logLevel: 'silent',
  });
  return outfile;
}

/**
 * `entry` (e.g. `cli/main.ts`) of `revision` (undefined: the working tree) bundled into a temp dir
 * that links the installed node_modules.
 */
export async function programAt(revision: string | undefined, entry: string): Promise<Program> {
  const commit = revision === undefined ? undefined : commitOf(revision);
  const dir = mkdtempSync(join(tmpdir(), `bench-program-${commit?.slice(0, 8) ?? 'worktree'}-`));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    let sourceRoot = ROOT;
    if (commit) {
      sourceRoot = join(dir, 'src');
      mkdirSync(sourceRoot);
      execFileSync('sh', ['-c', `git archive --format=tar "${commit}" | tar -x -C "${sourceRoot}"`], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      if (!existsSync(join(sourceRoot, entry))) throw new Error(`${entry} does not exist at ${revision}`);
      symlinkSync(join(ROOT, 'node_modules'), join(sourceRoot, 'node_modules'), 'dir');
    }
    const out = join(dir, 'out');
    mkdirSync(out);
    const file = await bundle(sourceRoot, entry, out);
    const label = commit ? `${revision} (${commit.slice(0, 8)})` : 'working tree';
    return { label, file, remove };
  } catch (e) {
    remove();
    throw e;
  }
}
