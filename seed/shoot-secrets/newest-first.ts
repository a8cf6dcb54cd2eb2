/**
 * The order in which the lookups pick among several secrets-manager secrets of one kind: newest
 * `metadata.creationTimestamp` first. Kubernetes timestamps have one-second resolution, so equal
 * timestamps happen; they are broken by name, byte-wise ascending (of two secrets created in the
 * same second, the one whose name sorts first counts as newer), so every caller sees the same
 * order whatever order the list came in. A missing or unparsable timestamp counts as oldest.
 */
import type { V1Secret } from '@kubernetes/client-node';

function createdAt(secret: V1Secret): number {
  const value: unknown = secret.metadata?.creationTimestamp;
  if (value === undefined || value === null) return Number.NEGATIVE_INFINITY;
  const time = value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
  return Number.isNaN(time) ? Number.NEGATIVE_INFINITY : time;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A new array, newest first (ties: name ascending); the input is not modified. */
export function newestFirst(secrets: readonly V1Secret[]): V1Secret[] {
  return [...secrets].sort((a, b) => {
    const ta = createdAt(a);
    const tb = createdAt(b);
    if (ta !== tb) return ta > tb ? -1 : 1;
    return compareNames(a.metadata?.name ?? '', b.metadata?.name ?? '');
  });
}
