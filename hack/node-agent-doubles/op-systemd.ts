/**
 * A Systemd that turns every call into one SystemdOp (enable/disable one per unit) and hands it to
 * `record`: the common part of the in-memory and the recording implementations, which both
 * answer `unitStatus` from the calls they recorded.
 */
import type { Systemd, SystemdOp, SystemdUnitOp } from '../../node-agent/systemd/systemd.js';
import type { UnitStatus } from '../../node-agent/systemd/unit-status.js';

export abstract class OpSystemd implements Systemd {
  protected abstract record(op: SystemdOp): Promise<void>;

  /** What systemd would report after the calls made so far (see simulated-unit-status.ts). */
  abstract unitStatus(unit: string): Promise<UnitStatus>;

  private unitOp(op: SystemdUnitOp, unit: string): Promise<void> {
    return this.record({ op, unit });
  }

  daemonReload(): Promise<void> {
    return this.record({ op: 'daemon-reload' });
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

  reload(unit: string): Promise<void> {
    return this.unitOp('reload', unit);
  }
}
