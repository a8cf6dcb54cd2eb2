/** A Systemd that only remembers what it was asked, for tests; a failure can be injected per op. */
import type { Systemd, SystemdOp, SystemdUnitOp } from './systemd.js';

export class MemorySystemd implements Systemd {
  readonly ops: SystemdOp[] = [];

  /** Returns an error to make that call fail (it is still recorded). */
  constructor(private readonly failOn: (op: SystemdOp) => Error | undefined = () => undefined) {}

  private record(op: SystemdOp): void {
    this.ops.push(op);
    const error = this.failOn(op);
    if (error) throw error;
  }

  private unitOp(op: SystemdUnitOp, unit: string): Promise<void> {
    return Promise.resolve().then(() => this.record({ op, unit }));
  }

  daemonReload(): Promise<void> {
    return Promise.resolve().then(() => this.record({ op: 'daemon-reload' }));
  }

  async enable(units: readonly string[]): Promise<void> {
    for (const unit of units) await this.unitOp('enable', unit);
  }

  async disable(units: readonly string[]): Promise<void> {
    for (const unit of units) await this.unitOp('disable', unit);
  }

  start(unit: string): Promise<void> {
    return this.unitOp('start', unit);
  }

  stop(unit: string): Promise<void> {
    return this.unitOp('stop', unit);
  }

  restart(unit: string): Promise<void> {
    return this.unitOp('restart', unit);
  }
}
