/**
 * A Systemd that only remembers what it was asked, for tests; a failure can be injected per op. A
 * failed call is recorded but has no effect on the simulated unit state.
 */

import type { SystemdOp } from '../../node-agent/systemd/systemd.js';
import type { UnitStatus } from '../../node-agent/systemd/unit-status.js';
import { OpSystemd } from './op-systemd.js';
import { simulatedUnitFileState } from './simulated-unit-file-state.js';
import { simulatedUnitStatus } from './simulated-unit-status.js';

export class MemorySystemd extends OpSystemd {
  readonly ops: SystemdOp[] = [];
  private readonly effective: SystemdOp[] = [];

  /** Returns an error to make that call fail (it is still recorded). */
  constructor(private readonly failOn: (op: SystemdOp) => Error | undefined = () => undefined) {
    super();
  }

  unitStatus(unit: string): Promise<UnitStatus> {
    return Promise.resolve(simulatedUnitStatus(this.effective, unit));
  }

  unitFileState(unit: string): Promise<string> {
    return Promise.resolve(simulatedUnitFileState(this.effective, unit));
  }

  protected record(op: SystemdOp): Promise<void> {
    return Promise.resolve().then(() => {
      this.ops.push(op);
      const error = this.failOn(op);
      if (error) throw error;
      this.effective.push(op);
    });
  }
}
