/**
 * Every transition is announced at least once: the decision keeps its events pending in the state
 * (written to the status before anything else) until the reconciler wrote them; a decision after
 * a reconcile that failed (or crashed) after the status write carries them on, also into a rollout
 * that supersedes it.
 */
import { expect } from 'chai';
import { decodeRolloutStatus, encodeRolloutStatus } from '../../../controllers/rollout/state.js';
import { decide, pool, START, T2 } from '../support/rollout-pool.js';

describe('rollout: announcements', () => {
  it('the events of a decision are pending in its state, and survive the status round trip', () => {
    const d = decide(pool(6), undefined, START);
    expect(d.state!.announce!.map((a) => a.reason)).to.deep.equal(['RolloutStarted', 'RolloutWaveStarted']);
    const back = decodeRolloutStatus(encodeRolloutStatus(new Map([['p', d.state!]]))).get('p')!;
    expect(back.announce).to.deep.equal(d.state!.announce);
  });

  it('pending announcements of a reconcile that failed are carried into the next decision', () => {
    const d = decide(pool(6), undefined, START);
    // nothing was announced (the reconcile failed after the status write): the next decision keeps them
    const next = decide(pool(6), d.state, START + 1000);
    expect(next.events).to.deep.equal([]);
    expect(next.state!.announce!.map((a) => a.reason)).to.deep.equal([
      'RolloutStarted',
      'RolloutWaveStarted',
    ]);
    // and also when a new configuration supersedes the rollout meanwhile
    const superseded = decide(pool(6), d.state, START + 2000, { target: T2 });
    expect(superseded.state!.announce!.map((a) => a.reason)).to.deep.equal([
      'RolloutStarted',
      'RolloutWaveStarted',
      'RolloutSuperseded',
      'RolloutWaveStarted',
    ]);
  });

  it('announced: nothing pending once the reconciler removed them', () => {
    const d = decide(pool(6), undefined, START);
    const { announce: _done, ...announced } = d.state!;
    expect(decide(pool(6), announced, START + 1000).state!.announce).to.equal(undefined);
  });
});
