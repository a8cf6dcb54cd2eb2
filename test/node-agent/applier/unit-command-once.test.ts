import { expect } from 'chai';
import type { HostRoot } from '../../../node-agent/applier/host-root.js';
import type { InFlightCommand } from '../../../node-agent/applier/progress-file.js';
import type { Step } from '../../../node-agent/applier/steps.js';
import { runCommandOnce } from '../../../node-agent/applier/unit-command-once.js';
import type { Systemd } from '../../../node-agent/systemd/systemd.js';
import type { UnitStatus } from '../../../node-agent/systemd/unit-status.js';
import { silentLogger } from '../../../runtime/logging.js';

const status = (o: Partial<UnitStatus>): UnitStatus => ({
  loadState: 'loaded',
  activeState: 'active',
  subState: 'running',
  invocationId: 'a'.repeat(32),
  activeEnterTimestampMonotonic: 100,
  inactiveEnterTimestampMonotonic: 50,
  inactiveExitTimestampMonotonic: 90,
  ...o,
});

/** systemd as the resumed process finds it: one unit in a fixed state; counts the calls made. */
function systemdShowing(now: UnitStatus): Systemd & { calls: number } {
  const s = {
    calls: 0,
    unitStatus: async () => now,
    daemonReload: async () => {},
    enable: async () => {},
    disable: async () => {},
    start: async () => {},
    stop: async () => {},
    restart: async () => {},
    reload: async () => {},
  };
  return s;
}

describe('node-agent: a restart interrupted by a crash runs once and reports its failure', () => {
  const step = { op: 'restart', unit: 'init-disk.service' } as const satisfies Step;
  const interrupted: InFlightCommand = {
    step: 'restart init-disk.service',
    unit: 'init-disk.service',
    before: status({}),
  };

  async function resume(now: UnitStatus) {
    const systemd = systemdShowing(now);
    const recorded: (InFlightCommand | undefined)[] = [];
    const journal = {
      interrupted: [interrupted],
      record: async (i: InFlightCommand) => void recorded.push(i),
      clear: async () => void recorded.push(undefined),
    };
    const outcome = runCommandOnce(
      step,
      { command: 'restart', unit: step.unit },
      {
        host: {} as HostRoot,
        systemd,
        journal,
        logger: silentLogger,
        call: async () => {
          systemd.calls++;
        },
      },
    );
    return { outcome, systemd, recorded };
  }

  it('a restart whose new invocation ended failed is reported as failed, not repeated, and its intent cleared', async () => {
    const r = await resume(
      status({
        activeState: 'failed',
        subState: 'failed',
        invocationId: 'b'.repeat(32),
        inactiveExitTimestampMonotonic: 200,
      }),
    );
    let error: unknown;
    await r.outcome.catch((e) => {
      error = e;
    });
    expect(String(error)).to.contain('restart of init-disk.service failed: the unit is failed');
    expect(r.systemd.calls).to.equal(0);
    expect(r.recorded).to.deep.equal([undefined]);
  });

  it('a restart that took effect and runs is not repeated', async () => {
    const r = await resume(status({ invocationId: 'b'.repeat(32), inactiveExitTimestampMonotonic: 200 }));
    expect(await r.outcome).to.equal('already-done');
    expect(r.systemd.calls).to.equal(0);
  });

  it('a restart that never reached systemd runs now', async () => {
    const r = await resume(status({}));
    expect(await r.outcome).to.equal('ran');
    expect(r.systemd.calls).to.equal(1);
  });
});
