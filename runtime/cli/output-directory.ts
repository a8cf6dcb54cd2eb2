/**
 * `--output DIR` of the commands that write one file per object, with kubectl's and Helm's care
 * for what is already there: the directory is created without Node's recursive mkdir (which spins
 * forever under /proc, where mkdir answers ENOENT although the parent exists), a directory holding files this program did not write is refused, and files it
 * wrote before that are no longer rendered are removed, so a snapshot directory is always exactly
 * the current render. What it wrote is listed in a manifest file in the directory.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from './exit-codes.js';

/** The manifest of what the last run wrote into an output directory, one file name a line. */
export const OUTPUT_MANIFEST = '.gardener-osc-output';
const MANIFEST_HEADER =
  '# written by gardener-osc render --output; files listed here are replaced or removed by the next run';

const exists = (path: string) => statSync(path, { throwIfNoEntry: false }) !== undefined;

/**
 * `mkdir -p` in bounded steps: every missing ancestor is created once, from the outermost, and the
 * first refusal (ENOENT on /proc, EACCES, ENOTDIR, EEXIST for a file) is thrown as it is.
 */
export function makeDirectories(path: string): void {
  const missing: string[] = [];
  for (let p = path; !exists(p); p = dirname(p)) {
    missing.unshift(p);
    if (dirname(p) === p) break;
  }
  if (missing.length === 0 && !statSync(path).isDirectory()) mkdirSync(path); // throws EEXIST
  for (const dir of missing) mkdirSync(dir);
}

function readManifest(dir: string): Set<string> | undefined {
  const path = join(dir, OUTPUT_MANIFEST);
  if (!exists(path)) return undefined;
  return new Set(
    readFileSync(path, 'utf8')
      .split('\n')
      // only plain names of this directory: a manifest never makes us remove anything elsewhere
      .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith('.') && !line.includes('/')),
  );
}

export interface OutputResult {
  /** Paths written, in the order given. */
  readonly written: readonly string[];
  /** Paths of files an earlier run wrote that are gone now. */
  readonly removed: readonly string[];
}

/**
 * Writes `files` (name → content) into `dir`. Refuses (nothing written) a directory holding a file
 * that is neither in its manifest nor about to be written; removes the manifest's files that are
 * not written now; then writes the manifest.
 */
export function writeOutputDirectory(dir: string, files: ReadonlyMap<string, string>): OutputResult {
  makeDirectories(dir);
  const previous = readManifest(dir) ?? new Set<string>();
  const foreign = readdirSync(dir).filter((f) => f !== OUTPUT_MANIFEST && !previous.has(f));
  if (foreign.length > 0) {
    const shown =
      foreign.sort().slice(0, 3).join(', ') + (foreign.length > 3 ? `, … (${foreign.length})` : '');
    throw new UsageError(
      `--output ${dir}: the directory holds files gardener-osc did not write (${shown}); name a new or empty directory, or one an earlier --output wrote`,
    );
  }
  const removed: string[] = [];
  for (const name of [...previous].sort()) {
    if (files.has(name)) continue;
    rmSync(join(dir, name), { force: true });
    removed.push(join(dir, name));
  }
  const written: string[] = [];
  for (const [name, content] of files) {
    writeFileSync(join(dir, name), content);
    written.push(join(dir, name));
  }
  writeFileSync(join(dir, OUTPUT_MANIFEST), `${MANIFEST_HEADER}\n${[...files.keys()].sort().join('\n')}\n`);
  return { written, removed };
}
