/**
 * `/var/lib/gardener-node-agent/reverted-osc-checksum`: the checksum of an OSC the agent applied,
 * judged failed and went back from (`run --revert-failed-applies`). The agent does not apply that
 * checksum again, also after a restart, until its secret holds another one (the fix); a successful
 * apply of any other OSC removes the file.
 */
import { rm } from 'node:fs/promises';
import { PATH } from '../../api/index.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { HostRoot } from './host-root.js';
import { readTextIfExists } from './last-applied.js';

export const REVERTED_FILE = `${PATH.nodeAgentBaseDir}/reverted-osc-checksum`;

export async function readReverted(host: HostRoot): Promise<string | undefined> {
  return (await readTextIfExists(host.path(REVERTED_FILE)))?.trim() || undefined;
}

export async function writeReverted(host: HostRoot, checksum: string): Promise<void> {
  const path = host.path(REVERTED_FILE);
  await host.prepareParent(path);
  await writeFileAtomic(path, `${checksum}\n`, 0o600);
}

export async function clearReverted(host: HostRoot): Promise<void> {
  await rm(host.path(REVERTED_FILE), { force: true });
}
