/**
 * Upstream's delay formula (node-side §7.2, §18.1; seed-side §7.2), kept for comparison and for
 * the agent's fallback: the nodes sorted by name, node `index` of `n` gets
 * `min + index × (max − min) / n`, computed in float64 seconds and truncated to nanoseconds.
 * Every join or leave changes `n` and so the delay of nearly every node, and zones are ignored.
 */

const NANOS_PER_SECOND = 1e9;

/**
 * Go's `sort.Strings` order: byte-wise on the UTF-8 encoding, which is code point order. UTF-16
 * code units agree with it except where a surrogate pair meets U+E000..U+FFFF.
 */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x < 0xd800 && y < 0xd800 ? x - y : a.codePointAt(i)! - b.codePointAt(i)!;
  }
  return a.length - b.length;
}

/**
 * `delay(index, n)` in nanoseconds; `minDelay`/`maxDelay` in nanoseconds (upstream passes whole
 * seconds, for which the float64 arithmetic here is identical). A negative index (node not in the
 * list) gives a negative delay, as upstream, which the agent treats as "now".
 */
export function upstreamDelayAt(index: number, n: number, minDelay: number, maxDelay: number): number {
  if (n <= 0) return 0;
  const minSeconds = minDelay / NANOS_PER_SECOND;
  const rangeSize = (maxDelay / NANOS_PER_SECOND - minSeconds) / n;
  const delaySeconds = minSeconds + index * rangeSize;
  return Math.trunc(delaySeconds * NANOS_PER_SECOND);
}

/** Every node's upstream delay (nanoseconds), by its index in the byte-wise name-sorted list. */
export function upstreamDelays(
  names: readonly string[],
  minDelay: number,
  maxDelay: number,
): Map<string, number> {
  const sorted = [...new Set(names)].sort(compareBytes);
  return new Map(
    sorted.map((name, index) => [name, upstreamDelayAt(index, sorted.length, minDelay, maxDelay)]),
  );
}
