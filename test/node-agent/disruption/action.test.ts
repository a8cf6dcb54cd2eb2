import { expect } from 'chai';
import { DISRUPTION_ACTIONS, rankOf, strongest } from '../../../node-agent/planner/disruption-action.js';
import '../support/harness.js';

describe('node-agent disruption: actions', () => {
  it('orders the actions from least to most disruptive', () => {
    expect(DISRUPTION_ACTIONS).to.deep.equal([
      'None',
      'DaemonReload',
      'Reload',
      'Restart',
      'DrainAndRestart',
      'Reboot',
    ]);
    expect(rankOf('Reload')).to.be.lessThan(rankOf('Restart'));
  });

  it('takes the most disruptive action any change needs, None for none', () => {
    expect(strongest([])).to.equal('None');
    expect(strongest(['Reload', 'None', 'DaemonReload'])).to.equal('Reload');
    expect(strongest(['Restart', 'Reload'])).to.equal('Restart');
    expect(strongest(['DaemonReload', 'Reboot', 'Restart'])).to.equal('Reboot');
  });
});
