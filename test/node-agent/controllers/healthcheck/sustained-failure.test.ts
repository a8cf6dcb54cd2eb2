import { expect } from 'chai';
import { SustainedFailure } from '../../../../node-agent/controllers/healthcheck/sustained-failure.js';
import { FakeClock } from '../../../../runtime/clock.js';

describe('health check: SustainedFailure', () => {
  it('tolerates a failure for a minute, then calls it sustained', async () => {
    const clock = new FakeClock();
    const failure = new SustainedFailure(clock);
    expect(failure.failed()).to.deep.equal({ first: true, sustained: false });
    await clock.advance(59_999);
    expect(failure.failed()).to.deep.equal({ first: false, sustained: false });
    await clock.advance(1);
    expect(failure.failed()).to.deep.equal({ first: false, sustained: true });
    expect(failure.reset()).to.equal(true);
    expect(failure.reset()).to.equal(false);
    expect(failure.failed()).to.deep.equal({ first: true, sustained: false });
  });

  it('measures with the injected clock only', () => {
    const clock = new FakeClock(0);
    const failure = new SustainedFailure(clock, 0);
    expect(failure.failed()).to.deep.equal({ first: true, sustained: true });
  });
});
