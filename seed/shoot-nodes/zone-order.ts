/**
 * An order of nodes that interleaves zones (`topology.kubernetes.io/zone`), shared by the per-node
 * delays (nodes next to each other in delay order) and the rollout's waves (consecutive nodes of
 * a wave): repeatedly the zone with the most nodes left that is not the zone just used (ties: the
 * least recently used, then the zone name), names ascending (Go's byte order) within a zone. For
 * equal zones this is round robin; it has no same-zone neighbours whenever the largest zone holds
 * at most ⌈n/2⌉ nodes, and the fewest possible (2·largest − n − 1) otherwise. A node without a
 * zone ('' or undefined) never counts as the same zone as its neighbour.
 */
import { compareGoStrings } from '../../api/index.js';

function lessKey(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

export function interleaveByZone<T extends { readonly name: string; readonly zone?: string }>(
  items: readonly T[],
): T[] {
  const groups = new Map<string, T[]>();
  for (const item of [...items].sort((a, b) => compareGoStrings(a.name, b.name))) {
    const zone = item.zone ?? '';
    const group = groups.get(zone);
    if (group) group.push(item);
    else groups.set(zone, [item]);
  }
  const zones = [...groups.keys()].sort(compareGoStrings);
  const next = new Map(zones.map((z) => [z, 0]));
  const lastUsed = new Map(zones.map((z) => [z, -1]));
  const out: T[] = [];
  let last: string | undefined;
  for (let step = 0; step < items.length; step++) {
    // Smallest key wins: [repeats the last zone, −nodes left, last used]; zones are in name order.
    let best: string | undefined;
    let bestKey: number[] = [];
    for (const z of zones) {
      const left = groups.get(z)!.length - next.get(z)!;
      if (left === 0) continue;
      const key = [z === last && z !== '' ? 1 : 0, -left, lastUsed.get(z)!];
      if (best === undefined || lessKey(key, bestKey)) {
        best = z;
        bestKey = key;
      }
    }
    const zone = best!;
    const index = next.get(zone)!;
    out.push(groups.get(zone)![index]!);
    next.set(zone, index + 1);
    lastUsed.set(zone, step);
    last = zone;
  }
  return out;
}
