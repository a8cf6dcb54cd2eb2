import { expect } from 'chai';
import { ReadyToggles } from '../../../../node-agent/controllers/healthcheck/ready-toggles.js';
import { FakeClock } from '../../../../runtime/clock.js';

const MINUTE = 60_000;

describe('health check: ReadyToggles (N-TV-11)', () => {
  let clock: FakeClock;
  let toggles: ReadyToggles;
  beforeEach(() => {
    clock = new FakeClock();
    toggles = new ReadyToggles(clock);
  });

  it('one toggle is not flapping', () => {
    expect(toggles.toggle()).to.equal(false);
  });

  it('five toggles at the same time are', () => {
    expect([1, 2, 3, 4, 5].map(() => toggles.toggle())).to.deep.equal([false, false, false, false, true]);
  });

  it('forgets toggles older than ten minutes', async () => {
    expect([toggles.toggle(), toggles.toggle(), toggles.toggle()]).to.deep.equal([false, false, false]);
    await clock.advance(3 * MINUTE);
    expect(toggles.toggle()).to.equal(false);
    await clock.advance(8 * MINUTE);
    expect([toggles.toggle(), toggles.toggle()]).to.deep.equal([false, false]);
    expect(toggles.length).to.equal(3);
    await clock.advance(11 * MINUTE);
    expect(toggles.toggle()).to.equal(false);
    expect(toggles.length).to.equal(1);
  });

  it('reverts the last toggle, and reverting none is harmless', () => {
    toggles.toggle();
    expect(toggles.length).to.equal(1);
    toggles.revert();
    expect(toggles.length).to.equal(0);
    toggles.revert();
    expect(toggles.length).to.equal(0);
  });
});
