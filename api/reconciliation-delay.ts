/**
 * The reconciliation delay of a node (`node-agent.gardener.cloud/reconciliation-delay`, a Go
 * duration), one home for what the seed and the agent must agree on: how the annotation is read,
 * Go's order of names, and upstream's formula (gardener v1.91.4
 * pkg/nodeagent/controller/operatingsystemconfig/add.go; the annotation from gardener v1.94.0
 * pkg/resourcemanager/controller/node/agentreconciliationdelay/reconciler.go). The seed's
 * own assignment (controllers/node-delay) is compared against the formula; the agent reads the
 * annotation.
 */
import { NANOS_PER_SECOND, parseGoDuration } from './duration.js';
import { ANNOTATION } from './well-known/annotations.js';

export type DelayAnnotation =
  | { readonly ok: true; readonly nanos: number }
  | { readonly ok: false; readonly reason: string };

/** The annotation as the agent reads it: a non-negative Go duration, else why not. */
export function readDelayAnnotation(text: string | undefined): DelayAnnotation {
  const name = ANNOTATION.reconciliationDelay;
  if (text === undefined) return { ok: false, reason: `annotation ${name} is missing` };
  let nanos: number;
  try {
    nanos = parseGoDuration(text);
  } catch (e) {
    return { ok: false, reason: `annotation ${name} is invalid: ${(e as Error).message}` };
  }
  return nanos >= 0 ? { ok: true, nanos } : { ok: false, reason: `annotation ${name} is negative: ${text}` };
}

/** The annotation's value in nanoseconds, or undefined if it is missing, unparsable or negative. */
export function parseDelayAnnotation(text: string | undefined): number | undefined {
  const read = readDelayAnnotation(text);
  return read.ok ? read.nanos : undefined;
}

/**
 * Go's `sort.Strings` order: byte-wise on the UTF-8 encoding, which is code point order. UTF-16
 * code units (JavaScript's `<`) agree with it except where a surrogate pair meets U+E000..U+FFFF.
 */
export function compareGoStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x < 0xd800 && y < 0xd800 ? x - y : a.codePointAt(i)! - b.codePointAt(i)!;
  }
  return a.length - b.length;
}

/**
 * Upstream's formula: with the nodes sorted by name, node `index` of `n` waits
 * `min + index × (max − min) / n`, in float64 seconds truncated to nanoseconds. `minDelay` and
 * `maxDelay` in nanoseconds (upstream passes whole seconds, for which this arithmetic is the same).
 * A negative index (node not in the list) gives a negative delay, as upstream. Every join or leave
 * changes `n` and so nearly every node's delay, and zones are ignored: the seed's own assignment
 * does better (docs/node-delay.md).
 */
export function upstreamDelayAt(index: number, n: number, minDelay: number, maxDelay: number): number {
  if (n <= 0) return 0;
  const minSeconds = minDelay / NANOS_PER_SECOND;
  const rangeSize = (maxDelay / NANOS_PER_SECOND - minSeconds) / n;
  const delaySeconds = minSeconds + index * rangeSize;
  return Math.trunc(delaySeconds * NANOS_PER_SECOND);
}

/** Every node's upstream delay (nanoseconds), by its index in the Go-ordered list of names. */
export function upstreamDelays(
  names: readonly string[],
  minDelay: number,
  maxDelay: number,
): Map<string, number> {
  const sorted = [...new Set(names)].sort(compareGoStrings);
  return new Map(
    sorted.map((name, index) => [name, upstreamDelayAt(index, sorted.length, minDelay, maxDelay)]),
  );
}
