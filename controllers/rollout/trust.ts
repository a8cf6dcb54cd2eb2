/**
 * Which nodes' word about the target counts (docs/rollout.md, "What a node can claim"). A node
 * speaks for the target only once the seed permitted it that checksum: a report (`apply-*`) or a
 * `checksum/cloud-config-data` naming the target on a Node whose permission names another checksum
 * is out of turn. One compromised node could otherwise halt its pool at wave 0 with a forged
 * `Failed`, or get itself counted as updated. Such a claim is left out of the decision (the node is
 * judged as if it had not said it) and named, so the system says it ignored it. A Node without any
 * permission yet (a new machine, the gate just turned on) is not out of turn: the seed has not
 * spoken. Pure.
 */
import type { NodeView } from './observe.js';

export interface IgnoredClaim {
  readonly node: string;
  /** What it claims: its report's result, or `applied` for checksum/cloud-config-data alone. */
  readonly claim: string;
  readonly checksum: string;
  readonly permitted: string;
  /** The report's time, so the same claim is announced once. */
  readonly time?: number;
}

export interface TrustedView {
  readonly nodes: readonly NodeView[];
  readonly ignored: readonly IgnoredClaim[];
}

export function trustClaims(nodes: readonly NodeView[], target: string): TrustedView {
  const ignored: IgnoredClaim[] = [];
  const out = nodes.map((n) => {
    if (n.permitted === undefined || n.permitted === target) return n;
    const reports = n.report?.checksum === target;
    if (!reports && n.applied !== target) return n;
    ignored.push({
      node: n.name,
      claim: reports ? n.report!.result : 'applied',
      checksum: target,
      permitted: n.permitted,
      ...(n.report?.time === undefined ? {} : { time: n.report.time }),
    });
    const { report, ...rest } = n;
    // a report about another checksum (an earlier apply) is no claim and stays
    return { ...rest, ...(report && !reports ? { report } : {}), outOfTurn: true };
  });
  return { nodes: out, ignored };
}
