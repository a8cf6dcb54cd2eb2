/**
 * Whether a live OperatingSystemConfig already asks for what we would write. Upstream patches the
 * OSC (new timestamp, operation annotation) on every reconcile, which makes the OS extension
 * reconcile it again each time; we write only when the spec or the pool label differs, so an
 * extension's status write never starts another round (docs/compatibility.md).
 */
import { LABEL, type OperatingSystemConfig } from '../../api/index.js';

/** JSON with object keys sorted, `undefined` members dropped: equal for semantically equal specs. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .filter(([, x]) => x !== undefined)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

export function sameDesiredState(live: OperatingSystemConfig, desired: OperatingSystemConfig): boolean {
  if (live.metadata.deletionTimestamp) return false;
  const pool = LABEL.workerPool;
  if (live.metadata.labels?.[pool] !== desired.metadata.labels?.[pool]) return false;
  return canonicalJson(live.spec) === canonicalJson(desired.spec);
}
