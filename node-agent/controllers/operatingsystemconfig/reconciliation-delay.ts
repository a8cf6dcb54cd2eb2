/**
 * How long the agent waits before applying a changed OSC (node-side §7.2). The seed writes each
 * node's delay as the annotation `node-agent.gardener.cloud/reconciliation-delay` (a Go
 * duration). When it is missing or unparsable the last valid value seen is used (N-TV-05), and
 * only if none was ever seen the index formula over the node names (N-TV-33, S-TV-6) with the
 * configured syncJitterPeriod; upstream returns 0 there (docs/compatibility.md).
 */
import { ANNOTATION, parseGoDuration } from '../../../api/index.js';

export interface DelayNode {
  readonly metadata?: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
}

/** `min + index * (max - min) / n` over the byte-ordered names, truncated to nanoseconds. */
export function indexDelay(
  nodeName: string,
  allNodeNames: readonly string[],
  minNanos: number,
  maxNanos: number,
): number {
  if (nodeName === '' || allNodeNames.length === 0) return 0;
  const sorted = [...allNodeNames].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = sorted.indexOf(nodeName);
  if (index < 0) return 0;
  // whole seconds as upstream (int(syncJitterPeriod.Seconds())), then float64 arithmetic
  const min = Math.trunc(minNanos / 1e9);
  const max = Math.trunc(maxNanos / 1e9);
  const rangeSize = (max - min) / sorted.length;
  return Math.trunc((min + index * rangeSize) * 1e9);
}

export type DelayOutcome =
  | { readonly nanos: number; readonly source: 'annotation' }
  | {
      readonly nanos: number;
      readonly source: 'last-valid' | 'index-formula' | 'unknown-node';
      readonly reason: string;
    };

export class ReconciliationDelay {
  private lastValid: number | undefined;

  constructor(private readonly syncJitterPeriodNanos: number) {}

  /** The delay for the next update; `allNodeNames` is used only when no annotation was ever valid. */
  compute(node: DelayNode | undefined, allNodeNames: () => readonly string[] = () => []): DelayOutcome {
    const name = node?.metadata?.name ?? '';
    if (name === '') return { nanos: 0, source: 'unknown-node', reason: 'the node is not registered yet' };
    const text = node?.metadata?.annotations?.[ANNOTATION.reconciliationDelay];
    let reason = `annotation ${ANNOTATION.reconciliationDelay} is missing`;
    if (text !== undefined) {
      try {
        const nanos = parseGoDuration(text);
        if (nanos >= 0) {
          this.lastValid = nanos;
          return { nanos, source: 'annotation' };
        }
        reason = `annotation ${ANNOTATION.reconciliationDelay} is negative: ${text}`;
      } catch (e) {
        reason = `annotation ${ANNOTATION.reconciliationDelay} is invalid: ${(e as Error).message}`;
      }
    }
    if (this.lastValid !== undefined) return { nanos: this.lastValid, source: 'last-valid', reason };
    return {
      nanos: indexDelay(name, allNodeNames(), 0, this.syncJitterPeriodNanos),
      source: 'index-formula',
      reason,
    };
  }
}
