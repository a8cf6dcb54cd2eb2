/** A Systemd that only remembers what it was asked, for tests; a failure can be injected per op. */
import { OpSystemd } from './op-systemd.js';
import type { SystemdOp } from './systemd.js';

export class MemorySystemd extends OpSystemd {
  readonly ops: SystemdOp[] = [];

  /** Returns an error to make that call fail (it is still recorded). */
  constructor(private readonly failOn: (op: SystemdOp) => Error | undefined = () => undefined) {
    super();
  }

  protected record(op: SystemdOp): Promise<void> {
    return Promise.resolve().then(() => {
      this.ops.push(op);
      const error = this.failOn(op);
      if (error) throw error;
    });
  }
}
