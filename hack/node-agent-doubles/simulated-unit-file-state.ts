/**
 * What `systemctl is-enabled` would say after a sequence of calls, for the recording and in-memory
 * Systemd: the last enable or disable of the unit decides; a unit never enabled or disabled is ''
 * (unknown), so drift detection does not judge it.
 */
import type { SystemdOp } from '../../node-agent/systemd/systemd.js';

export function simulatedUnitFileState(ops: readonly SystemdOp[], unit: string): string {
  let state = '';
  for (const op of ops) {
    if (!('unit' in op) || op.unit !== unit) continue;
    if (op.op === 'enable') state = 'enabled';
    else if (op.op === 'disable') state = 'disabled';
  }
  return state;
}
