import { expect } from 'chai';
import { Gauge, Registry } from 'prom-client';
import { newController, type WatchSource } from '../../runtime/controller-builder.js';
import type { InformerHandlers } from '../../runtime/kube/informer.js';
import { runtimeMetrics } from '../../runtime/metrics.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (predicate()) return;
    await tick();
  }
  throw new Error('condition not reached');
}

interface Obj {
  readonly name: string;
  readonly owners?: readonly string[];
  readonly generation?: number;
}

/** A source whose sync and events the test drives. */
class FakeSource implements WatchSource<Obj> {
  readonly handlers = new Set<InformerHandlers<Obj>>();
  private synced = false;
  private waiters: (() => void)[] = [];

  subscribe(h: InformerHandlers<Obj>): () => void {
    this.handlers.add(h);
    return () => this.handlers.delete(h);
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push(resolve);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  }

  sync(): void {
    this.synced = true;
    for (const w of this.waiters.splice(0)) w();
  }

  add(o: Obj): void {
    for (const h of this.handlers) h.add?.(o);
  }

  update(a: Obj, b: Obj): void {
    for (const h of this.handlers) h.update?.(a, b);
  }

  delete(o: Obj): void {
    for (const h of this.handlers) h.delete?.(o);
  }
}

describe('ControllerBuilder', () => {
  let stop: AbortController;
  beforeEach(() => (stop = new AbortController()));
  afterEach(() => stop.abort());

  it('reconciles nothing before every watched and read source has synced', async () => {
    const watched = new FakeSource();
    const read = new FakeSource();
    const seen: string[] = [];
    const running = newController('t')
      .watches(watched, (o) => o.name)
      .reads(read)
      .start(stop.signal, async (key) => {
        seen.push(key);
      });
    watched.add({ name: 'a' });
    watched.sync();
    await tick();
    await tick();
    expect(seen, 'the read source has not synced').to.deep.equal([]);
    read.sync();
    await running.synced();
    await until(() => seen.length === 1);
    expect(seen).to.deep.equal(['a']);
  });

  it('enqueues only the events its predicate lets through', async () => {
    const source = new FakeSource();
    source.sync();
    const seen: string[] = [];
    newController('t')
      .watches(source, (o) => o.name, {
        create: (o) => o.name !== 'ignored',
        update: (a, b) => a.generation !== b.generation,
      })
      .start(stop.signal, async (key) => {
        seen.push(key);
      });
    source.add({ name: 'ignored' });
    source.add({ name: 'created' });
    source.update({ name: 'same', generation: 1 }, { name: 'same', generation: 1 });
    source.update({ name: 'changed', generation: 1 }, { name: 'changed', generation: 2 });
    source.delete({ name: 'deleted' });
    await until(() => seen.length >= 2);
    await tick();
    expect(seen.sort()).to.deep.equal(['changed', 'created']);
  });

  it('fans one event out to every key it maps to, and enqueues after a delay when told', async () => {
    const source = new FakeSource();
    source.sync();
    const seen: string[] = [];
    const running = newController('t')
      .watches(source, (o) => o.owners)
      .start(stop.signal, async (key) => {
        seen.push(key);
      });
    const delayed = running.watch(new FakeSource(), (o) => o.name, undefined, { delayMs: 60_000 });
    source.add({ name: 'x', owners: ['p', 'q'] });
    source.add({ name: 'y' });
    await until(() => seen.length === 2);
    expect(seen.sort()).to.deep.equal(['p', 'q']);
    delayed();
  });

  it('unsubscribes every watch, also the ones added while running, when its signal aborts', async () => {
    const source = new FakeSource();
    const later = new FakeSource();
    source.sync();
    const running = newController('t')
      .watches(source, (o) => o.name)
      .start(stop.signal, async () => undefined);
    running.watch(later, (o) => o.name);
    expect(source.handlers.size).to.equal(1);
    expect(later.handlers.size).to.equal(1);
    stop.abort();
    await running.stopped();
    expect(source.handlers.size).to.equal(0);
    expect(later.handlers.size).to.equal(0);
  });

  it('waits for the reconcile in flight, then cleans up and removes its metric series', async () => {
    const source = new FakeSource();
    source.sync();
    const registry = new Registry();
    const gauge = new Gauge({ name: 'owned', help: 'h', labelNames: ['shoot'], registers: [registry] });
    gauge.set({ shoot: 'a' }, 1);
    gauge.set({ shoot: 'b' }, 2);
    const order: string[] = [];
    let release = () => undefined as void;
    const running = newController('t', { metrics: runtimeMetrics(registry) })
      .watches(source, (o) => o.name)
      .onStop(() => {
        order.push('cleanup');
      })
      .ownsSeries(gauge, { shoot: 'a' })
      .start(stop.signal, async () => {
        order.push('reconcile');
        await new Promise<void>((r) => (release = r));
        order.push('reconciled');
      });
    source.add({ name: 'k' });
    await until(() => order.length === 1);
    stop.abort();
    await tick();
    expect(order, 'the clean-up waits for the reconcile').to.deep.equal(['reconcile']);
    release();
    await running.stopped();
    expect(order).to.deep.equal(['reconcile', 'reconciled', 'cleanup']);
    expect((await gauge.get()).values.map((v) => v.labels)).to.deep.equal([{ shoot: 'b' }]);
  });

  it('queues its start keys once the workers run, and is ready only when its readiness is', async () => {
    const source = new FakeSource();
    const seen: string[] = [];
    let ready = () => undefined as void;
    let isSynced = false;
    const running = newController('t')
      .watches(source, (o) => o.name)
      .enqueueOnStart('shoot')
      .readyWhen(() => new Promise<void>((r) => (ready = r)))
      .start(stop.signal, async (key) => {
        seen.push(key);
      });
    void running.synced().then(() => (isSynced = true));
    source.sync();
    await until(() => seen.length === 1);
    expect(seen).to.deep.equal(['shoot']);
    expect(isSynced).to.equal(false);
    ready();
    await running.synced();
  });

  it('stops cleanly when its signal aborts before the sources synced', async () => {
    const source = new FakeSource();
    let cleaned = false;
    const running = newController('t')
      .watches(source, (o) => o.name, undefined, { delayMs: 60_000 })
      .onStop(() => {
        cleaned = true;
      })
      .start(stop.signal, async () => undefined);
    source.add({ name: 'a' });
    stop.abort();
    await running.stopped();
    expect(cleaned).to.equal(true);
    expect(running.controller.queue.dueAt('a'), 'no delayed add outlives the controller').to.equal(undefined);
    await running.synced().then(
      () => expect.fail('never synced'),
      () => undefined,
    );
  });
});
