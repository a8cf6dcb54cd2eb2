/**
 * Whether the running agent may repair drift now, or only report it (docs/node-agent.md#drift). A
 * repair restarts units like an apply does, so it must never undercut the seed's rollout gate
 * (docs/rollout.md): on a Node whose rollout failed (the halt lives on its Node) it only reports;
 * where the seed permits a checksum, it repairs only once this node has applied that checksum and
 * reported it Succeeded (the change the gate permitted is done, nothing is in flight). Without a
 * permission the agent applies as upstream's does, and repairs too. Pure.
 */
import type { V1Node } from '@kubernetes/client-node';
import { APPLY_REPORT_ANNOTATION, ROLLOUT_FAILURE_ANNOTATION, readPermission } from '../../../api/index.js';

export type RepairPermission =
  | { readonly repair: true }
  | { readonly repair: false; readonly reason: string };

export function repairPermission(node: V1Node | undefined): RepairPermission {
  const annotations = node?.metadata?.annotations ?? {};
  if (annotations[ROLLOUT_FAILURE_ANNOTATION.checksum] !== undefined)
    return { repair: false, reason: 'the rollout is halted on this node: report only' };
  const permission = readPermission(annotations);
  if (permission.kind === 'none') return { repair: true };
  if (permission.kind === 'invalid')
    return { repair: false, reason: 'the rollout permission cannot be read: report only' };
  const done =
    annotations[APPLY_REPORT_ANNOTATION.checksum] === permission.checksum &&
    annotations[APPLY_REPORT_ANNOTATION.result] === 'Succeeded';
  return done
    ? { repair: true }
    : { repair: false, reason: 'a rollout has not finished on this node: report only' };
}
