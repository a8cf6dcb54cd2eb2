/**
 * How long the agent waits before applying a changed OSC (gardener v1.94.0
 * pkg/nodeagent/controller/operatingsystemconfig/add.go): the seed writes
 * each node's delay as the annotation `node-agent.gardener.cloud/reconciliation-delay` (a Go
 * duration, read by api/reconciliation-delay.ts). When it is missing or unparsable the last valid
 * value seen is used (N-TV-05), and 0 when none was ever seen. v1.91 computed upstream's index
 * formula over every Node instead (docs/compatibility.md N13).
 */
import { ANNOTATION, readDelayAnnotation } from '../../../api/index.js';

export interface DelayNode {
  readonly metadata?: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
}

export type DelayOutcome =
  | { readonly nanos: number; readonly source: 'annotation' }
  | {
      readonly nanos: number;
      readonly source: 'last-valid' | 'none-seen' | 'unknown-node';
      readonly reason: string;
    };

export class ReconciliationDelay {
  private lastValid: number | undefined;

  /** The delay for the next update of the OSC secret. */
  compute(node: DelayNode | undefined): DelayOutcome {
    const name = node?.metadata?.name ?? '';
    if (name === '') return { nanos: 0, source: 'unknown-node', reason: 'the node is not registered yet' };
    const read = readDelayAnnotation(node?.metadata?.annotations?.[ANNOTATION.reconciliationDelay]);
    if (read.ok) {
      this.lastValid = read.nanos;
      return { nanos: read.nanos, source: 'annotation' };
    }
    if (this.lastValid !== undefined)
      return { nanos: this.lastValid, source: 'last-valid', reason: read.reason };
    return { nanos: 0, source: 'none-seen', reason: read.reason };
  }
}
