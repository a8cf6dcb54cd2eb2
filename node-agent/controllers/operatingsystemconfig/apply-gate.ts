/**
 * Whether the agent may apply the OSC its secret holds now (docs/rollout.md). Without a permission
 * annotation on its Node it applies as upstream's agent does; with one, only the checksum it
 * names. Anything it cannot read as a checksum holds the node: a gate that cannot decide holds.
 */
import { PERMITTED_CHECKSUM_ANNOTATION, type Permission } from '../../../api/index.js';

export type GateDecision =
  | { readonly kind: 'apply'; readonly gated: boolean }
  | { readonly kind: 'hold'; readonly reason: string };

const short = (checksum: string) => checksum.slice(0, 12);

export function gateDecision(permission: Permission, checksum: string | undefined): GateDecision {
  switch (permission.kind) {
    case 'none':
      return { kind: 'apply', gated: false };
    case 'invalid':
      return {
        kind: 'hold',
        reason: `${PERMITTED_CHECKSUM_ANNOTATION} is not a checksum: ${JSON.stringify(permission.value)}`,
      };
    case 'checksum':
      if (checksum === undefined)
        return { kind: 'hold', reason: 'the OSC secret carries no checksum/data-script to compare with' };
      return permission.checksum === checksum
        ? { kind: 'apply', gated: true }
        : {
            kind: 'hold',
            reason: `the seed permits ${short(permission.checksum)}, the OSC secret holds ${short(checksum)}`,
          };
  }
}
