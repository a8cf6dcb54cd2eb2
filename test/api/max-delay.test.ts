import { expect } from 'chai';
import { formatGoDuration, seconds } from '../../api/duration.js';
import { allNodesUpdatedTimeoutSeconds, maxDelayFromShoot } from '../../api/max-delay.js';

const KEY = 'shoot.gardener.cloud/cloud-config-execution-max-delay-seconds';
const of = (value?: string) => maxDelayFromShoot(value === undefined ? {} : { [KEY]: value });

// Upstream: gardener v1.91.4 pkg/gardenlet/operation/shoot/shoot.go.
describe('maxDelayFromShoot', () => {
  it('S-TV-25: absent, 0, 1800, 1801 and the wait timeout', () => {
    expect(of()).to.deep.equal({ seconds: 300, source: 'default' });
    expect(formatGoDuration(seconds(of().seconds))).to.equal('5m0s');
    expect(of('0')).to.deep.equal({ seconds: 0, source: 'annotation' });
    expect(formatGoDuration(seconds(of('0').seconds))).to.equal('0s');
    expect(formatGoDuration(seconds(of('1800').seconds))).to.equal('30m0s');
    expect(of('1801')).to.include({ seconds: 300, source: 'ignored' });
    expect(formatGoDuration(seconds(allNodesUpdatedTimeoutSeconds(300, true)))).to.equal('8m0s');
    expect(allNodesUpdatedTimeoutSeconds(300, false)).to.equal(360);
    expect(maxDelayFromShoot(undefined).seconds).to.equal(300);
  });

  it('S-TV-25: "abc" is an error; it is rejected with a reason and the default is used', () => {
    const result = of('abc');
    expect(result).to.include({ seconds: 300, source: 'rejected' });
    expect((result as { reason: string }).reason).to.contain('"abc" is not an integer');
  });

  it('accepts what strconv.Atoi accepts, but rejects negative values (upstream accepts them)', () => {
    expect(of('+5')).to.deep.equal({ seconds: 5, source: 'annotation' });
    expect(of('007')).to.deep.equal({ seconds: 7, source: 'annotation' });
    expect(of('-5')).to.include({ seconds: 300, source: 'rejected' });
    for (const bad of [' 5', '5s', '1.5', '', '99999999999999999999'])
      expect(of(bad).source, bad).to.equal('rejected');
  });
});
