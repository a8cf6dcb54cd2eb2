import { expect } from 'chai';
import { commandTookEffect, interruptedCommandOutcome } from '../../../node-agent/applier/command-effect.js';
import type { UnitStatus } from '../../../node-agent/systemd/unit-status.js';

const unit = (o: Partial<UnitStatus>): UnitStatus => ({
  loadState: 'loaded',
  activeState: 'active',
  subState: 'running',
  invocationId: 'a'.repeat(32),
  activeEnterTimestampMonotonic: 100,
  inactiveEnterTimestampMonotonic: 50,
  inactiveExitTimestampMonotonic: 90,
  ...o,
});
const running = unit({});
const stoppedBefore = unit({
  activeState: 'inactive',
  subState: 'dead',
  inactiveEnterTimestampMonotonic: 120,
});
const neverStarted = unit({
  activeState: 'inactive',
  subState: 'dead',
  invocationId: '',
  activeEnterTimestampMonotonic: 0,
  inactiveEnterTimestampMonotonic: 0,
  inactiveExitTimestampMonotonic: 0,
});

describe('node-agent: did a restart or stop in flight at a crash take effect?', () => {
  const table: [string, 'restart' | 'stop', UnitStatus, UnitStatus, boolean][] = [
    ['restart: unchanged unit', 'restart', running, running, false],
    [
      'restart: a new invocation',
      'restart',
      running,
      unit({
        invocationId: 'b'.repeat(32),
        inactiveExitTimestampMonotonic: 200,
        activeEnterTimestampMonotonic: 210,
      }),
      true,
    ],
    ['restart: a never started unit now started', 'restart', neverStarted, running, true],
    ['restart: a never started unit still never started', 'restart', neverStarted, neverStarted, false],
    [
      'restart: stopped, starting now (the job runs in systemd)',
      'restart',
      running,
      unit({ activeState: 'activating', inactiveEnterTimestampMonotonic: 200 }),
      true,
    ],
    [
      'restart: stopped by itself and not running (no start happened)',
      'restart',
      running,
      unit({ activeState: 'failed', inactiveEnterTimestampMonotonic: 200 }),
      false,
    ],
    [
      'restart: started without an InvocationID (old systemd), by the timestamp',
      'restart',
      unit({ invocationId: '' }),
      unit({ invocationId: '', inactiveExitTimestampMonotonic: 300 }),
      true,
    ],
    [
      'restart: after a reboot (everything differs)',
      'restart',
      running,
      unit({
        invocationId: 'c'.repeat(32),
        inactiveExitTimestampMonotonic: 5,
        activeEnterTimestampMonotonic: 6,
      }),
      true,
    ],
    ['stop: still running', 'stop', running, running, false],
    ['stop: now inactive', 'stop', running, stoppedBefore, true],
    ['stop: stopping now', 'stop', running, unit({ activeState: 'deactivating' }), true],
    ['stop: was not running and is not', 'stop', stoppedBefore, stoppedBefore, true],
    [
      'stop: stopped and started again by someone else',
      'stop',
      running,
      unit({ inactiveEnterTimestampMonotonic: 200, invocationId: 'd'.repeat(32) }),
      true,
    ],
    [
      'stop: running again after a reboot',
      'stop',
      running,
      unit({
        invocationId: 'e'.repeat(32),
        inactiveEnterTimestampMonotonic: 0,
        inactiveExitTimestampMonotonic: 3,
      }),
      false,
    ],
  ];
  for (const [what, command, before, now, expected] of table) {
    it(what, () => expect(commandTookEffect(command, before, now)).to.equal(expected));
  }
});

describe('node-agent: what a resumed apply does with an interrupted restart or stop', () => {
  const restartedInto = (activeState: string) =>
    unit({ activeState, invocationId: 'b'.repeat(32), inactiveExitTimestampMonotonic: 200 });
  const table: [string, 'restart' | 'stop', UnitStatus, UnitStatus, string][] = [
    ['restart that never reached systemd: repeat it', 'restart', running, running, 'repeat'],
    ['restart whose new invocation runs: done', 'restart', running, restartedInto('active'), 'done'],
    [
      'restart whose new invocation is starting: done',
      'restart',
      running,
      restartedInto('activating'),
      'done',
    ],
    // Without the crash `systemctl restart` of a failing oneshot exits non-zero and the apply reports it.
    [
      'restart whose new invocation ended failed: failed',
      'restart',
      running,
      restartedInto('failed'),
      'failed',
    ],
    ['stop that left the unit failed: done', 'stop', running, unit({ activeState: 'failed' }), 'done'],
    ['stop that never reached systemd: repeat it', 'stop', running, running, 'repeat'],
  ];
  for (const [what, command, before, now, expected] of table) {
    it(what, () => expect(interruptedCommandOutcome(command, before, now)).to.equal(expected));
  }
});
