/** N-TV-12 through the controller: interval 1 s, a fake clock stepped 80 s, real HTTP to a fake kubelet. */
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { eventually } from '../../../../hack/landscape/eventually.js';
import { MemorySystemd } from '../../../../hack/node-agent-doubles/memory-systemd.js';
import { agentMetrics } from '../../../../node-agent/controllers/agent-metrics.js';
import {
  addHealthCheckController,
  HEALTH_CHECK_CONTROLLER_NAME,
  runHealthChecks,
} from '../../../../node-agent/controllers/healthcheck/add.js';
import type { HealthChecker } from '../../../../node-agent/controllers/healthcheck/checker.js';
import { FakeClock } from '../../../../runtime/clock.js';
import { runtimeMetrics } from '../../../../runtime/metrics.js';
import { opText } from '../../support/apply-fixture.js';
import {
  FakeEvents,
  type FakeKubelet,
  startFakeKubelet,
  unreachableUrl,
} from '../../support/fake-kubelet.js';

const node = {
  metadata: { name: 'node-a', uid: 'uid-a' },
  status: { conditions: [{ type: 'Ready', status: 'True' }] },
};

describe('health-check controller (N-TV-12)', () => {
  let stop: AbortController;
  let clock: FakeClock;
  let systemd: MemorySystemd;
  let registry: Registry;
  let kubelet: FakeKubelet;
  let containerdError: Error | undefined;

  beforeEach(async () => {
    stop = new AbortController();
    clock = new FakeClock();
    systemd = new MemorySystemd();
    registry = new Registry();
    kubelet = await startFakeKubelet();
    containerdError = undefined;
  });
  afterEach(async () => {
    stop.abort();
    await kubelet.close();
  });

  async function rounds(): Promise<number> {
    const values = (await runtimeMetrics(registry).reconcileTotal.get()).values;
    return values
      .filter((v) => v.labels.controller === HEALTH_CHECK_CONTROLLER_NAME)
      .reduce((sum, v) => sum + v.value, 0);
  }

  /** Starts the controller, then steps the clock second by second, each step after its round finished. */
  async function run(kubeletHealthzUrl: string, seconds: number) {
    const events = new FakeEvents();
    const controller = addHealthCheckController(
      {
        kubeletHealthzUrl,
        containerdCheck: () => (containerdError ? Promise.reject(containerdError) : Promise.resolve()),
        node: () => node,
        systemd,
        events,
        intervalMs: 1000,
        clock,
        metrics: runtimeMetrics(registry),
        healthMetrics: agentMetrics(registry, clock),
      },
      stop.signal,
    );
    expect(controller?.name).to.equal('health-check');
    await eventually('the first round', async () => (await rounds()) === 1, 5000, 2);
    for (let s = 1; s <= seconds; s++) {
      await clock.advance(1000);
      await eventually(`round ${s + 1}`, async () => (await rounds()) === s + 1, 5000, 2);
    }
    return { ops: systemd.ops.map(opText), events };
  }

  it('containerd OK, kubelet 200: nothing, consistently', async () => {
    const { ops, events } = await run(kubelet.url, 80);
    expect(ops).to.deep.equal([]);
    expect(events.recorded).to.deep.equal([]);
    expect(kubelet.hits).to.equal(81);
  });

  it('containerd Version errors, clock +80 s: exactly Restart containerd.service', async () => {
    containerdError = new Error('rpc error: code = Unavailable');
    const { ops } = await run(kubelet.url, 80);
    expect(ops).to.deep.equal(['restart containerd.service']);
  });

  it('kubelet endpoint unreachable, clock +80 s: exactly Restart kubelet.service', async () => {
    const { ops } = await run(await unreachableUrl(), 80);
    expect(ops).to.deep.equal(['restart kubelet.service']);
    const failures = (await agentMetrics(registry).healthCheckFailures.get()).values;
    expect(failures).to.deep.equal([{ labels: { component: 'kubelet' }, value: 81 }]);
  });

  it('no probes configured: no controller', () => {
    const controller = addHealthCheckController(
      { node: () => undefined, systemd, events: new FakeEvents() },
      stop.signal,
    );
    expect(controller).to.equal(undefined);
  });

  it('one round runs every checker and names each that failed', async () => {
    const checker = (name: string, error?: string): HealthChecker => ({
      name,
      check: () => (error ? Promise.reject(new Error(error)) : Promise.resolve()),
    });
    await runHealthChecks([checker('a'), checker('b')], undefined, stop.signal);
    let error: Error | undefined;
    await runHealthChecks([checker('a', 'x'), checker('b'), checker('c', 'y')], undefined, stop.signal).catch(
      (e: Error) => (error = e),
    );
    expect(error?.message).to.equal('health checks failed: a: x; c: y');
  });
});
