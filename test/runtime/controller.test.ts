import { Writable } from 'node:stream';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { FakeClock } from '../../runtime/clock.js';
import { Controller, type ReconcileContext } from '../../runtime/controller.js';
import { createLogger } from '../../runtime/logging.js';
import { runtimeMetrics } from '../../runtime/metrics.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

async function until(predicate: () => boolean, clock?: FakeClock): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (predicate()) return;
    if (clock) await clock.advance(1);
    else await tick();
  }
  throw new Error('condition not reached');
}

describe('Controller', () => {
  let stop: AbortController;
  beforeEach(() => (stop = new AbortController()));
  afterEach(() => stop.abort());

  it('reconciles each key, one at a time per key', async () => {
    const seen: string[] = [];
    let running = 0;
    let maxRunning = 0;
    const c = new Controller({
      name: 't',
      concurrency: 4,
      reconcile: async (key) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await tick();
        seen.push(key);
        running--;
      },
    });
    c.start(stop.signal);
    c.queue.add('a');
    await tick();
    c.queue.add('a');
    c.queue.add('b');
    await until(() => seen.length === 3);
    expect(seen.filter((k) => k === 'a')).to.have.length(2);
    expect(maxRunning).to.be.at.most(2);
  });

  it('retries an error (and a thrown exception) with backoff until it succeeds, then forgets', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const registry = new Registry();
    const c = new Controller({
      name: 'flaky',
      clock,
      metrics: runtimeMetrics(registry),
      reconcile: async () => {
        calls++;
        if (calls < 4) throw new Error(`attempt ${calls}`);
      },
    });
    c.start(stop.signal);
    c.queue.add('k');
    await until(() => calls === 4, clock);
    expect(c.queue.numRequeues('k')).to.equal(0);
    const text = await registry.metrics();
    expect(text).to.contain('controller_runtime_reconcile_errors_total{controller="flaky"} 3');
    expect(text).to.contain('controller_runtime_reconcile_total{controller="flaky",result="success"} 1');
  });

  it('requeues after the requested delay', async () => {
    const clock = new FakeClock();
    const at: number[] = [];
    const c = new Controller({
      name: 'periodic',
      clock,
      reconcile: async () => {
        at.push(clock.now());
        return at.length < 3 ? { requeueAfterMs: 10_000 } : undefined;
      },
    });
    c.start(stop.signal);
    c.queue.add('k');
    await until(() => at.length === 1);
    await clock.advance(10_000);
    await clock.advance(10_000);
    await clock.advance(60_000);
    expect(at.map((t) => t - at[0]!)).to.deep.equal([0, 10_000, 20_000]);
  });

  it('aborts a reconcile that exceeds its timeout and retries it', async () => {
    let calls = 0;
    let aborted: unknown;
    const c = new Controller({
      name: 'slow',
      timeoutMs: 20,
      reconcile: (_key, ctx: ReconcileContext) => {
        calls++;
        if (calls > 1) return Promise.resolve(undefined);
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => {
            aborted = ctx.signal.reason;
            reject(ctx.signal.reason);
          }),
        );
      },
    });
    c.start(stop.signal);
    c.queue.add('k');
    await new Promise((r) => setTimeout(r, 100));
    expect((aborted as Error).name).to.equal('ReconcileTimeoutError');
    expect(calls).to.equal(2);
  });

  it('never starts a key again before its timed-out run has really ended', async () => {
    const runs: { start: number; end?: number }[] = [];
    let overlapping = 0;
    let active = 0;
    const warnings: string[] = [];
    const log = createLogger({
      level: 'warn',
      destination: new Writable({
        write(chunk: Buffer, _e, done) {
          warnings.push(JSON.parse(chunk.toString('utf8')).msg);
          done();
        },
      }),
    });
    const c = new Controller({
      name: 'stubborn',
      timeoutMs: 20,
      overrunLogIntervalMs: 50,
      log,
      // the first run ignores its signal and takes 300 ms; later ones are quick
      reconcile: async () => {
        const run = { start: performance.now() } as { start: number; end?: number };
        runs.push(run);
        active++;
        overlapping = Math.max(overlapping, active);
        await new Promise((r) => setTimeout(r, runs.length === 1 ? 300 : 1));
        active--;
        run.end = performance.now();
      },
    });
    c.start(stop.signal);
    c.queue.add('k');
    await new Promise((r) => setTimeout(r, 50));
    c.queue.add('k'); // a new event while the abandoned run goes on
    await new Promise((r) => setTimeout(r, 500));
    expect(overlapping, 'runs of one key at the same time').to.equal(1);
    expect(runs.length).to.be.at.least(2);
    expect(runs[1]!.start).to.be.at.least(runs[0]!.end!);
    expect(warnings).to.include('Reconcile still running after it was aborted; its key waits for it');
  });

  it('stops its workers when the signal aborts', async () => {
    const c = new Controller({ name: 's', reconcile: async () => undefined });
    c.start(stop.signal);
    stop.abort();
    await c.stopped();
    expect(c.queue.isShuttingDown).to.equal(true);
  });
});
