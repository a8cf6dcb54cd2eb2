/**
 * Replacing a file atomically: the new bytes go to a temp file in the destination's directory (so
 * the rename never crosses a filesystem), get their exact mode by fchmod (umask never decides), are
 * fsynced, and are renamed over the destination; the directory is fsynced so the rename survives a
 * power loss. A reader sees the old file or the new one, never a mix. The temp name is fixed per
 * destination (`.<name>.gna-tmp`), so a leftover of a crash is replaced by the next attempt.
 */
import { constants, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ensureDir } from './ensure-dir.js';

export function tempPathFor(destination: string): string {
  return join(dirname(destination), `.${basename(destination)}.gna-tmp`);
}

async function assertReplaceable(destination: string): Promise<void> {
  try {
    const s = await stat(destination);
    if (!s.isFile()) throw new Error(`destination "${destination}" exists but is not a regular file`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Has `create` make a fresh temp file next to `destination` (it must fail if the name exists, so it
 * never writes through a planted symlink), then gives it `mode`, fsyncs and renames it into place.
 */
export async function replaceFileAtomically(
  destination: string,
  mode: number,
  create: (temp: string) => Promise<void>,
): Promise<void> {
  await ensureDir(dirname(destination));
  await assertReplaceable(destination);
  const temp = tempPathFor(destination);
  await rm(temp, { force: true });
  try {
    await create(temp);
    const handle = await open(temp, constants.O_RDWR | constants.O_NOFOLLOW);
    try {
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, destination);
  } catch (e) {
    await rm(temp, { force: true });
    throw e;
  }
  await fsyncDir(dirname(destination));
}

export async function writeFileAtomic(
  destination: string,
  data: string | Uint8Array,
  mode: number,
): Promise<void> {
  await replaceFileAtomically(destination, mode, (temp) =>
    writeFile(temp, data, { flag: 'wx', mode: 0o600 }),
  );
}
