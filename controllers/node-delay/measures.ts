/** Measures of an assignment, shared by tests, the benchmark and the docs' evidence. */

export interface PlacedNode {
  readonly name: string;
  readonly zone?: string;
  readonly delay: number;
}

function byDelay(nodes: readonly PlacedNode[]): PlacedNode[] {
  return [...nodes].sort((a, b) => a.delay - b.delay || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const known = (zone: string | undefined): zone is string => zone !== undefined && zone !== '';

/** The smallest distance between neighbouring delays (Infinity below two nodes). */
export function smallestGap(nodes: readonly PlacedNode[]): number {
  const sorted = byDelay(nodes);
  let gap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < sorted.length; i++) gap = Math.min(gap, sorted[i]!.delay - sorted[i - 1]!.delay);
  return gap;
}

/** Neighbours in delay order that share a (known) zone. */
export function sameZoneNeighbours(nodes: readonly PlacedNode[]): number {
  const sorted = byDelay(nodes);
  let count = 0;
  for (let i = 1; i < sorted.length; i++) {
    const zone = sorted[i]!.zone;
    if (known(zone) && zone === sorted[i - 1]!.zone) count++;
  }
  return count;
}

/** The longest run of consecutive nodes (delay order) in one zone; 1 when none repeat. */
export function longestZoneRun(nodes: readonly PlacedNode[]): number {
  const sorted = byDelay(nodes);
  let longest = sorted.length > 0 ? 1 : 0;
  let run = 1;
  for (let i = 1; i < sorted.length; i++) {
    const zone = sorted[i]!.zone;
    run = known(zone) && zone === sorted[i - 1]!.zone ? run + 1 : 1;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** The fewest same-zone neighbours any order can have: max(0, 2·largest zone − n − 1). */
export function fewestSameZoneNeighbours(zones: readonly (string | undefined)[]): number {
  const counts = new Map<string, number>();
  for (const z of zones) if (known(z)) counts.set(z, (counts.get(z) ?? 0) + 1);
  const largest = Math.max(0, ...counts.values());
  return Math.max(0, 2 * largest - zones.length - 1);
}

/** The most restarts running at once when each starts at its delay and takes `duration`. */
export function mostOverlapping(delays: readonly number[], duration: number): number {
  const sorted = [...delays].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= duration) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
