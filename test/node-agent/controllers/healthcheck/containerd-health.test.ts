import { expect } from 'chai';
import { Registry } from 'prom-client';
import { MemorySystemd } from '../../../../hack/node-agent-doubles/memory-systemd.js';
import { type AgentMetrics, agentMetrics } from '../../../../node-agent/controllers/agent-metrics.js';
import {
  ContainerdHealthChecker,
  ProbeUnavailableError,
} from '../../../../node-agent/controllers/healthcheck/containerd-health.js';
import { FakeClock } from '../../../../runtime/clock.js';
import { silentLogger } from '../../../../runtime/logging.js';
import { opText } from '../../support/apply-fixture.js';
import { FakeEvents } from '../../support/fake-kubelet.js';

const node = { metadata: { name: 'node-a', uid: 'uid-a' } };

// Upstream: gardener v1.91.4 pkg/nodeagent/controller/healthcheck/containerd.go.
describe('health check: containerd', () => {
  let clock: FakeClock;
  let systemd: MemorySystemd;
  let events: FakeEvents;
  let metrics: AgentMetrics;
  let failure: Error | undefined;
  const signal = new AbortController().signal;

  beforeEach(() => {
    clock = new FakeClock();
    systemd = new MemorySystemd();
    events = new FakeEvents();
    metrics = agentMetrics(new Registry(), clock);
    failure = undefined;
  });

  const checker = () =>
    new ContainerdHealthChecker({
      systemd,
      events,
      clock,
      log: silentLogger,
      metrics,
      check: () => (failure ? Promise.reject(failure) : Promise.resolve()),
    });

  it('restarts containerd.service after a minute of failing, once, and reports the recovery', async () => {
    const c = checker();
    await c.check(node, signal);
    failure = new Error('connection refused');
    for (let i = 0; i < 4; i++) {
      await c.check(node, signal);
      await clock.advance(20_000);
    }
    failure = undefined;
    await c.check(node, signal);
    expect(systemd.ops.map(opText)).to.deep.equal(['restart containerd.service']);
    expect(events.messages()).to.deep.equal([
      'Warning containerd: Containerd is unhealthy: connection refused',
      'Warning containerd: Containerd is unhealthy for more than 1m0s, restarting it: connection refused',
    ]);
    const restarts = (await metrics.healthCheckRestarts.get()).values;
    expect(restarts).to.deep.equal([{ labels: { component: 'containerd' }, value: 1 }]);
  });

  it('reports a recovery before the restart', async () => {
    const c = checker();
    failure = new Error('timeout');
    await c.check(node, signal);
    failure = undefined;
    await c.check(node, signal);
    expect(events.messages()).to.deep.equal([
      'Warning containerd: Containerd is unhealthy: timeout',
      'Normal containerd: Containerd is healthy',
    ]);
  });

  it('names a failed restart', async () => {
    systemd = new MemorySystemd(() => new Error('job failed'));
    const c = checker();
    failure = new Error('down');
    await c.check(node, signal);
    await clock.advance(60_000);
    let error: Error | undefined;
    await c.check(node, signal).catch((e: Error) => (error = e));
    expect(error?.message).to.equal('failed restarting containerd: job failed');
  });

  it('a probe that cannot run is an error, not a containerd failure', async () => {
    const c = checker();
    failure = new ProbeUnavailableError('cannot run ctr: spawn ctr ENOENT');
    for (let i = 0; i < 3; i++) {
      await c.check(node, signal).catch(() => undefined);
      await clock.advance(60_000);
    }
    expect(systemd.ops).to.deep.equal([]);
    expect(events.recorded).to.deep.equal([]);
    expect((await metrics.healthCheckFailures.get()).values).to.deep.equal([]);
  });
});
