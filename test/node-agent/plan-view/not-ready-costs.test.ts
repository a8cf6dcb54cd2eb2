import { expect } from 'chai';
import { disruptionSum, disruptionSumText } from '../../../node-agent/plan-view/disruption-view.js';
import {
  DRAIN_UNTIL_READY_SECONDS,
  KUBELET_RESTART_NOT_READY_SECONDS,
  notReadyEstimate,
} from '../../../node-agent/plan-view/not-ready-costs.js';
import type { UnitDisruption } from '../../../node-agent/planner/decide-disruption.js';
import type { DisruptionAction } from '../../../node-agent/planner/disruption-action.js';

const decision = (unit: string, action: DisruptionAction): UnitDisruption => ({
  unit,
  action,
  baseline: 'Restart',
  causes: [],
});

describe('plan view: the expected NotReady seconds of a pool', () => {
  it('uses the measured costs: a kubelet restart 0 s, a drain the 0.88 s until Ready', () => {
    expect(KUBELET_RESTART_NOT_READY_SECONDS).to.equal(0);
    expect(DRAIN_UNTIL_READY_SECONDS).to.equal(0.88);
  });

  const cases: readonly [string, readonly UnitDisruption[], number, number, number][] = [
    ['nothing', [], 0, 0, 0],
    ['a kubelet restart', [decision('kubelet.service', 'Restart')], 1, 0, 0],
    ['a kubelet reload or no-op is no restart', [decision('kubelet.service', 'None')], 0, 0, 0],
    ['other restarts cost nothing', [decision('containerd.service', 'Restart')], 0, 0, 0],
    ['a kubelet drain', [decision('kubelet.service', 'DrainAndRestart')], 1, 1, 0.88],
    [
      'two drains add up, in hundredths',
      [decision('kubelet.service', 'DrainAndRestart'), decision('containerd.service', 'DrainAndRestart')],
      1,
      2,
      1.76,
    ],
  ];
  for (const [name, decisions, kubeletRestarts, drains, seconds] of cases)
    it(name, () => {
      expect(notReadyEstimate(decisions)).to.deep.equal({
        kubeletRestarts,
        drains,
        notReadySecondsPerNode: seconds,
      });
    });

  it('the pool sum carries them, and its text says how it adds up', () => {
    const sum = disruptionSum([
      decision('kubelet.service', 'DrainAndRestart'),
      decision('systemd-journald.service', 'Restart'),
      decision('containerd.service', 'None'),
    ]);
    expect(sum).to.deep.include({ restarts: 1, drains: 1, kubeletRestarts: 1, notReadySecondsPerNode: 0.88 });
    expect(disruptionSumText(sum)).to.equal(
      '1 restarts, 0 reloads, 1 drains, 1 restarts avoided; expected NotReady 0.88 s per node (1 kubelet restarts × 0 s + 1 drains × 0.88 s until Ready)',
    );
  });
});
