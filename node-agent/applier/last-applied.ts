/**
 * `/var/lib/gardener-node-agent/last-applied-osc.yaml`: the exact osc.yaml bytes of the last
 * completed apply, the base of the next diff. Written atomically with 0600 (v1.111; v1.91 wrote
 * 0644 in place).
 */
import { readFile } from 'node:fs/promises';
import {
  decodeOperatingSystemConfig,
  formatFieldErrors,
  type OperatingSystemConfig,
  PATH,
} from '../../api/index.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { HostRoot } from './host-root.js';

export const LAST_APPLIED_MODE = 0o600;

export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export async function readLastAppliedText(host: HostRoot): Promise<string | undefined> {
  return readTextIfExists(host.path(PATH.lastAppliedOsc));
}

/** The previous OSC, or an explanation why it cannot be used. */
export function decodeLastApplied(text: string): { osc: OperatingSystemConfig } | { problem: string } {
  const decoded = decodeOperatingSystemConfig(text);
  return decoded.ok ? { osc: decoded.value } : { problem: formatFieldErrors(decoded.errors) };
}

export async function writeLastApplied(host: HostRoot, oscText: string): Promise<void> {
  const path = host.path(PATH.lastAppliedOsc);
  await host.prepareParent(path);
  await writeFileAtomic(path, oscText, LAST_APPLIED_MODE);
}
