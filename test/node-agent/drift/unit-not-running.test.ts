import { expect } from 'chai';
import { notRunning } from '../../../node-agent/applier/unit-not-running.js';

describe('node-agent drift: which unit states are not running', () => {
  const ran = { invocationId: '5fdfa8a1446e4f67952fc9dcf8106d69' };
  const cases: [string, Parameters<typeof notRunning>[0], boolean][] = [
    ['active', { ...ran, activeState: 'active', type: 'simple', result: 'success' }, false],
    ['activating', { ...ran, activeState: 'activating', type: 'notify', result: 'success' }, false],
    [
      'failed',
      {
        ...ran,
        activeState: 'failed',
        type: 'simple',
        result: 'exit-code',
        execMainCode: 1,
        execMainStatus: 1,
      },
      true,
    ],
    [
      'failed and unloaded (reset)',
      { invocationId: '', activeState: 'failed', type: 'simple', result: 'exit-code' },
      true,
    ],
    [
      'a oneshot that exited cleanly',
      { ...ran, activeState: 'inactive', type: 'oneshot', result: 'success' },
      false,
    ],
    ['a oneshot whose result is unknown', { ...ran, activeState: 'inactive', type: 'oneshot' }, false],
    [
      'a simple service whose script exited 0 (containerd-logrotate.service on a real node)',
      {
        ...ran,
        activeState: 'inactive',
        type: 'simple',
        result: 'success',
        execMainCode: 1,
        execMainStatus: 0,
      },
      false,
    ],
    [
      'a simple service whose script exited 1, then was reset',
      {
        ...ran,
        activeState: 'inactive',
        type: 'simple',
        result: 'exit-code',
        execMainCode: 1,
        execMainStatus: 1,
      },
      true,
    ],
    [
      'a service systemd unloaded after it ended (gardener-user.service on a real node)',
      { invocationId: '', activeState: 'inactive', type: 'simple', result: 'success', execMainCode: 0 },
      false,
    ],
    [
      'a simple service stopped by SIGTERM (systemctl stop)',
      {
        ...ran,
        activeState: 'inactive',
        type: 'simple',
        result: 'success',
        execMainCode: 2,
        execMainStatus: 15,
      },
      true,
    ],
    [
      'stopped, as the simulation says it (no exit status)',
      { ...ran, activeState: 'inactive', result: 'success' },
      true,
    ],
  ];
  for (const [what, status, expected] of cases)
    it(`${what}: ${expected ? 'not running' : 'running or done'}`, () => {
      expect(notRunning(status)).to.equal(expected);
    });
});
