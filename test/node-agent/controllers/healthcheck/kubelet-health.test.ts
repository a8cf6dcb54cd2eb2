import type { V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { MemorySystemd } from '../../../../hack/node-agent-doubles/memory-systemd.js';
import { type AgentMetrics, agentMetrics } from '../../../../node-agent/controllers/agent-metrics.js';
import { KubeletHealthChecker } from '../../../../node-agent/controllers/healthcheck/kubelet-health.js';
import { kubeletHealthzProbe } from '../../../../node-agent/controllers/healthcheck/kubelet-healthz.js';
import { FakeClock } from '../../../../runtime/clock.js';
import { KubeStatusError } from '../../../../runtime/kube/kube-http.js';
import { silentLogger } from '../../../../runtime/logging.js';
import { opText } from '../../support/apply-fixture.js';
import {
  FakeEvents,
  type FakeKubelet,
  startFakeKubelet,
  unreachableUrl,
} from '../../support/fake-kubelet.js';

const SECOND = 1000;

function node(ready = true, addresses: { type: string; address: string }[] = []): V1Node {
  return {
    metadata: { name: 'node-a', uid: 'uid-a' },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], addresses },
  };
}

async function count(metric: AgentMetrics['healthCheckFailures'], component: string): Promise<number> {
  return (await metric.get()).values.find((v) => v.labels.component === component)?.value ?? 0;
}

// Upstream: gardener v1.91.4 pkg/nodeagent/controller/healthcheck/kubelet.go.
describe('health check: kubelet', () => {
  let clock: FakeClock;
  let systemd: MemorySystemd;
  let events: FakeEvents;
  let metrics: AgentMetrics;
  let kubelet: FakeKubelet;
  const signal = new AbortController().signal;

  beforeEach(async () => {
    clock = new FakeClock();
    systemd = new MemorySystemd();
    events = new FakeEvents();
    metrics = agentMetrics(new Registry(), clock);
    kubelet = await startFakeKubelet();
  });
  afterEach(() => kubelet.close());

  const checker = (
    url = kubelet.url,
    extra: Partial<ConstructorParameters<typeof KubeletHealthChecker>[0]> = {},
  ) =>
    new KubeletHealthChecker({
      systemd,
      events,
      clock,
      log: silentLogger,
      metrics,
      probe: kubeletHealthzProbe(url),
      ...extra,
    });

  it('healthy: nothing to do, nothing to report', async () => {
    const c = checker();
    for (let i = 0; i < 5; i++) {
      await c.check(node(), signal);
      await clock.advance(30 * SECOND);
    }
    expect(kubelet.hits).to.equal(5);
    expect(systemd.ops).to.deep.equal([]);
    expect(events.messages()).to.deep.equal([]);
    expect(await count(metrics.healthCheckFailures, 'kubelet')).to.equal(0);
  });

  it('a transient failure is reported and tolerated, never restarted', async () => {
    const c = checker();
    kubelet.status = 500;
    await c.check(node(), signal);
    await clock.advance(30 * SECOND);
    await c.check(node(), signal);
    await clock.advance(29 * SECOND);
    kubelet.status = 200;
    await c.check(node(), signal);
    expect(systemd.ops).to.deep.equal([]);
    expect(events.messages()).to.deep.equal([
      'Warning kubelet: Kubelet is unhealthy, health check error: unexpected status code 500',
      'Normal kubelet: Kubelet is healthy',
    ]);
    expect(events.recorded.every((e) => e.object === 'Node/node-a')).to.equal(true);
    expect(await count(metrics.healthCheckFailures, 'kubelet')).to.equal(2);
    expect(await count(metrics.healthCheckRestarts, 'kubelet')).to.equal(0);
  });

  it('a sustained failure restarts kubelet.service exactly once, then it recovers', async () => {
    const c = checker();
    kubelet.status = 503;
    for (let i = 0; i < 3; i++) {
      await c.check(node(), signal);
      await clock.advance(30 * SECOND);
    }
    // failing since 0 s; the check at 60 s restarted it and the minute starts over
    expect(systemd.ops.map(opText)).to.deep.equal(['restart kubelet.service']);
    expect(events.messages()).to.deep.equal([
      'Warning kubelet: Kubelet is unhealthy, health check error: unexpected status code 503',
      'Warning kubelet: Kubelet is unhealthy for more than 1m0s, restarting it. Health check error: unexpected status code 503',
    ]);
    expect(await count(metrics.healthCheckRestarts, 'kubelet')).to.equal(1);
    expect(await count(metrics.healthCheckFailures, 'kubelet')).to.equal(3);

    kubelet.status = 200;
    await c.check(node(), signal);
    await clock.advance(30 * SECOND);
    await c.check(node(), signal);
    expect(systemd.ops.map(opText)).to.deep.equal(['restart kubelet.service']);
    expect(events.messages()).to.have.length(2, 'the restart already reset the failure: no "healthy" event');
  });

  it('an unreachable kubelet is a failure naming the endpoint', async () => {
    const url = await unreachableUrl();
    const c = checker(url);
    await c.check(node(), signal);
    await clock.advance(60 * SECOND);
    await c.check(node(), signal);
    expect(systemd.ops.map(opText)).to.deep.equal(['restart kubelet.service']);
    expect(events.recorded[0]!.message).to.match(
      new RegExp(`^Kubelet is unhealthy, health check error: Get "${url}": .*ECONNREFUSED`),
    );
  });

  it('a kubelet that does not answer fails after the probe timeout', async () => {
    kubelet.status = 0;
    const c = checker(undefined, { probe: kubeletHealthzProbe(kubelet.url, 50) });
    await c.check(node(), signal);
    expect(events.recorded[0]!.message).to.equal(
      `Kubelet is unhealthy, health check error: Get "${kubelet.url}": no response within 50 ms`,
    );
  });

  it('a failed restart is an error and is tried again next time', async () => {
    systemd = new MemorySystemd((op) => (op.op === 'restart' ? new Error('job failed') : undefined));
    const c = checker();
    kubelet.status = 500;
    await c.check(node(), signal);
    await clock.advance(60 * SECOND);
    let error: Error | undefined;
    await c.check(node(), signal).catch((e: Error) => (error = e));
    expect(error?.message).to.equal('job failed');
    await c.check(node(), signal).catch(() => undefined);
    expect(systemd.ops.map(opText)).to.deep.equal(['restart kubelet.service', 'restart kubelet.service']);
    expect(await count(metrics.healthCheckRestarts, 'kubelet')).to.equal(0);
  });

  it('checks before the Node is registered, reporting only in the log', async () => {
    const c = checker();
    kubelet.status = 500;
    await c.check(undefined, signal);
    await clock.advance(60 * SECOND);
    await c.check(undefined, signal);
    expect(systemd.ops.map(opText)).to.deep.equal(['restart kubelet.service']);
    expect(events.recorded).to.deep.equal([]);
  });

  it('N-TV-12: five NotReady→Ready transitions are reported, never a reboot', async () => {
    const c = checker();
    for (let i = 0; i < 5; i++) {
      await c.check(node(false), signal);
      await clock.advance(2 * SECOND);
      await c.check(node(true), signal);
    }
    await clock.advance(80 * SECOND);
    await c.check(node(true), signal);
    expect(c.toggles.length).to.equal(5);
    expect(systemd.ops).to.deep.equal([]);
    expect(events.messages()).to.deep.equal([
      'Warning kubelet: Kubelet toggled between NotReady and Ready at least 5 times in a 10m0s time window. Rebooting the node might help',
    ]);
  });

  describe('lost InternalIP (N-TV-12)', () => {
    const written: V1Node[] = [];
    beforeEach(() => (written.length = 0));
    const withRecovery = (write: (n: V1Node) => Promise<void> = async (n) => void written.push(n)) =>
      checker(undefined, { writeStatus: write, hostAddresses: () => ['127.0.0.1', '1.2.3.4'] });

    it('restores the last known InternalIP when the host still has it', async () => {
      const c = withRecovery();
      await c.check(node(true, [{ type: 'InternalIP', address: '1.2.3.4' }]), signal);
      await c.check(node(true, []), signal);
      expect(written.map((n) => n.status?.addresses)).to.deep.equal([
        [{ type: 'InternalIP', address: '1.2.3.4' }],
      ]);
      expect(written[0]!.status?.conditions?.[0]?.type, 'the rest of the status is kept').to.equal('Ready');
      expect(events.messages()).to.deep.equal([
        'Warning kubelet: Node status does neither have an internal nor an external IP, try to recover from last known internal IP:1.2.3.4',
        'Normal kubelet: Updated the lost internal IP address of node status to the previous known: 1.2.3.4 ',
      ]);
    });

    it('leaves an address the host no longer has, and a node with an ExternalIP', async () => {
      const c = withRecovery();
      await c.check(node(true, [{ type: 'InternalIP', address: '10.0.0.9' }]), signal);
      await c.check(node(true, [{ type: 'ExternalIP', address: '5.6.7.8' }]), signal);
      await c.check(node(true, []), signal);
      expect(written).to.deep.equal([]);
      expect(events.recorded).to.have.length(1);
    });

    it('a conflict is retried, another write error restarts the kubelet', async () => {
      let error: Error = new KubeStatusError(409, 'Conflict', 'conflict');
      const c = withRecovery(() => Promise.reject(error));
      await c.check(node(true, [{ type: 'InternalIP', address: '1.2.3.4' }]), signal);
      let thrown: unknown;
      await c.check(node(true, []), signal).catch((e) => (thrown = e));
      expect(thrown).to.equal(error);
      expect(systemd.ops).to.deep.equal([]);
      error = new Error('forbidden');
      await c.check(node(true, []), signal);
      expect(systemd.ops.map(opText)).to.deep.equal(['restart kubelet.service']);
      expect(await count(metrics.healthCheckRestarts, 'kubelet')).to.equal(1);
    });
  });
});
