/**
 * `mkdir -p` with an exact mode for every directory it creates (umask never decides); directories
 * that already exist are left as they are. Returns the directories it created, outermost first, so
 * a caller that must leave no trace can remove them again.
 */
import { chmod, mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

export const DIR_MODE = 0o755;

async function isMissing(path: string): Promise<boolean> {
  try {
    await stat(path);
    return false;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw e;
  }
}

export async function ensureDir(dir: string, mode = DIR_MODE): Promise<string[]> {
  const missing: string[] = [];
  for (let d = dir; await isMissing(d); d = dirname(d)) {
    missing.unshift(d);
    if (dirname(d) === d) break;
  }
  const created: string[] = [];
  for (const d of missing) {
    try {
      await mkdir(d, { mode });
    } catch (e) {
      // Someone else created it in between; it is theirs, so its mode is too.
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    created.push(d);
    await chmod(d, mode);
  }
  return created;
}
