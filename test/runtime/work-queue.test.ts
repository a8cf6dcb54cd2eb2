import { expect } from 'chai';
import { Registry } from 'prom-client';
import { FakeClock } from '../../runtime/clock.js';
import { runtimeMetrics } from '../../runtime/metrics.js';
import { WorkQueue } from '../../runtime/work-queue.js';

describe('WorkQueue', () => {
  let clock: FakeClock;
  let q: WorkQueue;

  beforeEach(() => {
    clock = new FakeClock();
    q = new WorkQueue({ name: 'test', clock });
  });

  it('dedupes keys that are queued', async () => {
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).to.equal(2);
    expect(await q.get()).to.equal('a');
    expect(await q.get()).to.equal('b');
  });

  it('never hands a key to two workers; a key re-added while processed comes back after done', async () => {
    q.add('a');
    const key = await q.get();
    q.add('a');
    expect(q.length).to.equal(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await clock.advance(0);
    expect(second).to.equal(undefined);
    q.done(key!);
    await clock.advance(0);
    expect(second).to.equal('a');
  });

  it('adds after a delay and keeps the earliest due time', async () => {
    q.addAfter('a', 10_000);
    q.addAfter('a', 5_000);
    q.addAfter('a', 20_000);
    expect(q.dueAt('a')).to.equal(clock.now() + 5_000);
    await clock.advance(4_999);
    expect(q.length).to.equal(0);
    await clock.advance(1);
    expect(q.length).to.equal(1);
    await clock.advance(20_000);
    expect(q.length).to.equal(1);
  });

  it('an immediate add cancels a later delayed add; a delayed add of a queued key does nothing', async () => {
    q.addAfter('a', 10_000);
    q.add('a');
    expect(q.dueAt('a')).to.equal(undefined);
    q.addAfter('a', 1_000);
    expect(q.dueAt('a')).to.equal(undefined);
    await q.get();
    await clock.advance(60_000);
    expect(q.length).to.equal(0);
  });

  it('backs off failing keys exponentially from 5 ms, capped, and forgets on success', async () => {
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      q.addRateLimited('a');
      delays.push(q.dueAt('a')! - clock.now());
      q.add('a'); // process it at once, so the next failure schedules anew
      q.done((await q.get())!);
    }
    expect(delays).to.deep.equal([5, 10, 20, 40, 80]);
    expect(q.numRequeues('a')).to.equal(5);
    q.forget('a');
    expect(q.numRequeues('a')).to.equal(0);
    const capped = new WorkQueue({ name: 'c', clock, backoffMaxMs: 1000 });
    for (let i = 0; i < 20; i++) capped.addRateLimited(`k`);
    expect(capped.dueAt('k')! - clock.now()).to.be.at.most(1000);
  });

  it('limits overall retries with a token bucket', () => {
    const bucket = new WorkQueue({ name: 'b', clock, bucketQps: 10, bucketBurst: 2 });
    bucket.addRateLimited('a');
    bucket.addRateLimited('b');
    bucket.addRateLimited('c');
    expect(bucket.dueAt('a')! - clock.now()).to.equal(5);
    expect(bucket.dueAt('c')! - clock.now()).to.equal(100);
  });

  it('wakes waiting getters with undefined on shutdown and drops delayed keys', async () => {
    q.addAfter('a', 1000);
    const pending = q.get();
    q.shutDown();
    expect(await pending).to.equal(undefined);
    await clock.advance(2000);
    expect(q.length).to.equal(0);
    q.add('b');
    expect(await q.get()).to.equal(undefined);
  });

  it('reports depth, adds and retries as Prometheus metrics', async () => {
    const registry = new Registry();
    const mq = new WorkQueue({ name: 'metered', clock, metrics: runtimeMetrics(registry) });
    mq.add('a');
    mq.add('b');
    mq.addRateLimited('c');
    const text = await registry.metrics();
    expect(text).to.contain('workqueue_depth{name="metered"} 2');
    expect(text).to.contain('workqueue_adds_total{name="metered"} 2');
    expect(text).to.contain('workqueue_retries_total{name="metered"} 1');
  });
});
