/**
 * Adopted drift (drift policy `Adopt`): the node's version of a file or unit state taken as known,
 * so it is no longer reported. Kept in `/var/lib/gardener-node-agent/drift-adopted.json` (0600,
 * written atomically), one entry per drift with what was expected and what the node had: when either
 * changes (a new OSC renders the file anew, or the node changes it again) the entry no longer
 * matches and the drift is reported again.
 */
import { PATH } from '../../api/index.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { type Drift, driftKey } from '../planner/drift.js';
import type { HostRoot } from './host-root.js';
import { readTextIfExists } from './last-applied.js';

export const DRIFT_ADOPTED_FILE = `${PATH.nodeAgentBaseDir}/drift-adopted.json`;

export interface Adoption {
  readonly key: string;
  readonly expected: string;
  readonly actual: string;
}

const adoptionOf = (d: Drift): Adoption => ({ key: driftKey(d), expected: d.expected, actual: d.actual });
const same = (a: Adoption, b: Adoption) =>
  a.key === b.key && a.expected === b.expected && a.actual === b.actual;

export async function readAdoptions(host: HostRoot): Promise<Adoption[]> {
  const text = await readTextIfExists(host.path(DRIFT_ADOPTED_FILE));
  if (text === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as Adoption[]) : [];
  } catch {
    // an unreadable file adopts nothing: the drift is reported, never silently hidden
    return [];
  }
}

export function adoptedFilter(adoptions: readonly Adoption[]): (d: Drift) => boolean {
  return (d) => !adoptions.some((a) => same(a, adoptionOf(d)));
}

/** Adds the drifts to the adopted ones; an older entry for the same drift is replaced. */
export async function adopt(host: HostRoot, drifts: readonly Drift[]): Promise<void> {
  if (drifts.length === 0) return;
  const added = drifts.map(adoptionOf);
  const kept = (await readAdoptions(host)).filter((a) => !added.some((b) => b.key === a.key));
  const path = host.path(DRIFT_ADOPTED_FILE);
  await host.prepareParent(path);
  await writeFileAtomic(path, `${JSON.stringify([...kept, ...added], null, 1)}\n`, 0o600);
}
