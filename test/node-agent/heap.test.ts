/** node-agent/heap.ts: the idle collection runs once the heap grew enough, and only then. */
import { expect } from 'chai';
import { collectIfGrown, IDLE_GC_GROWTH } from '../../node-agent/heap.js';

describe('node agent heap: collection after growth', () => {
  it('collects only when the heap grew by the threshold since the last collection', () => {
    let used = 10_000_000;
    let collections = 0;
    const state = { lastUsed: used };
    const collect = () => {
      collections++;
      used = 11_000_000; // what survives
    };
    const tick = () => collectIfGrown(state, () => used, collect);
    expect(tick()).to.equal(false);
    used += IDLE_GC_GROWTH - 1;
    expect(tick()).to.equal(false);
    used += 1;
    expect(tick()).to.equal(true);
    expect(state.lastUsed).to.equal(11_000_000);
    expect(tick()).to.equal(false);
    expect(collections).to.equal(1);
  });

  it('exposes no gc() to the agent itself', () => {
    expect('gc' in globalThis).to.equal(false);
  });
});
