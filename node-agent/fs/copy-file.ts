/**
 * CopyFile (gardener v1.91.4 pkg/nodeagent/files/files.go, N-TV-17): the destination gets the
 * source's bytes and exactly `mode`, replaced atomically. Used for files taken from container
 * images.
 */
import { constants, copyFile, stat } from 'node:fs/promises';
import { replaceFileAtomically } from './atomic-write.js';

export async function copyFileAtomic(source: string, destination: string, mode: number): Promise<void> {
  const s = await stat(source);
  if (!s.isFile()) throw new Error(`source "${source}" is not a regular file`);
  await replaceFileAtomically(destination, mode, (temp) => copyFile(source, temp, constants.COPYFILE_EXCL));
}
