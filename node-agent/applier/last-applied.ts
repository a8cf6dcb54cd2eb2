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

/**
 * The OSC last written, decoded: the next apply diffs against it, and decoding the same text again
 * would cost the largest single share of an update's CPU (YAML parsing). Keyed by the exact text,
 * so a file that changed on disk is decoded afresh.
 */
let remembered: { readonly text: string; readonly osc: OperatingSystemConfig } | undefined;

/** The previous OSC, or an explanation why it cannot be used. */
export function decodeLastApplied(text: string): { osc: OperatingSystemConfig } | { problem: string } {
  if (remembered?.text === text) return { osc: remembered.osc };
  const decoded = decodeOperatingSystemConfig(text);
  return decoded.ok ? { osc: decoded.value } : { problem: formatFieldErrors(decoded.errors) };
}

/** Writes the text; `osc` (decoded from exactly that text) is kept for the next `decodeLastApplied`. */
export async function writeLastApplied(
  host: HostRoot,
  oscText: string,
  osc?: OperatingSystemConfig,
): Promise<void> {
  const path = host.path(PATH.lastAppliedOsc);
  await host.prepareParent(path);
  await writeFileAtomic(path, oscText, LAST_APPLIED_MODE);
  remembered = osc ? { text: oscText, osc } : undefined;
}
