import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { eventuallyPasses } from '../../../../hack/landscape/eventually.js';
import { MemorySystemd } from '../../../../hack/node-agent-doubles/memory-systemd.js';
import { HostRoot } from '../../../../node-agent/applier/host-root.js';
import { removeProgress, writeProgress } from '../../../../node-agent/applier/progress-file.js';
import { driftMetrics } from '../../../../node-agent/controllers/drift/drift-metrics.js';
import { DriftMonitor } from '../../../../node-agent/controllers/drift/drift-monitor.js';
import { computePlan } from '../../../../node-agent/planner/compute-plan.js';
import { DirectoryImageExtractor } from '../../../../node-agent/registry/directory-extractor.js';
import { driftOsc } from '../../drift/drift-fixture.js';
import { applyTo, opText } from '../../support/apply-fixture.js';
import { useTempDirs } from '../../support/harness.js';

const CHECKSUM = 'a'.repeat(64);

describe('node-agent drift monitor: reports on the Node, repairs unless a rollout holds it', () => {
  const tempDir = useTempDirs();
  let root: string;
  let images: string;
  let systemd: MemorySystemd;
  let node: V1Node;
  let applied: unknown[];
  let events: string[];
  let registry: Registry;
  const at = (path: string) => join(root, path);

  function monitor(watch = false) {
    return new DriftMonitor({
      root,
      systemd,
      images: new DirectoryImageExtractor(images),
      node: () => node,
      client: { apply: (_r, intent) => Promise.resolve(applied.push(intent)) as never },
      recorder: {
        event: (_o, type, reason, message) =>
          Promise.resolve(void events.push(`${type} ${reason} ${message}`)),
      },
      metrics: driftMetrics(registry),
      hostName: 'node-a',
      intervalMs: 60_000,
      watch,
    });
  }
  type ConditionIntent = { status: { conditions: { status: string; reason: string; message: string }[] } };
  const condition = () => (applied.at(-1) as ConditionIntent).status.conditions[0];
  /** Every condition reported so far, in order. */
  const conditions = () => applied.map((a) => (a as ConditionIntent).status.conditions[0]!);

  beforeEach(async () => {
    root = tempDir('gna-drift-monitor-');
    images = tempDir('gna-images-');
    systemd = new MemorySystemd();
    registry = new Registry();
    applied = [];
    events = [];
    node = { metadata: { name: 'node-a', uid: 'u1', annotations: {} } };
    await applyTo(root, driftOsc(), images, { systemd });
  });

  it('no drift: condition False (NoDrift), no events', async () => {
    await monitor().check();
    expect(condition()).to.include({ type: 'NodeConfigurationDrift', status: 'False', reason: 'NoDrift' });
    expect(events).to.deep.equal([]);
  });

  it('repairs an edit, restarting only the owner; events and condition say so; a second check finds nothing', async () => {
    writeFileSync(at('var/lib/kubelet/config/kubelet'), 'edited\n');
    const before = systemd.ops.length;
    const outcome = await monitor().check();
    expect(outcome?.repaired).to.equal(true);
    expect(systemd.ops.slice(before).map(opText)).to.deep.equal([
      'enable kubelet.service',
      'daemon-reload',
      'restart kubelet.service',
    ]);
    expect(readFileSync(at('var/lib/kubelet/config/kubelet'), 'utf8')).to.contain('maxPods');
    expect(events).to.have.length(2);
    expect(events[0]).to.match(
      /^Warning ConfigurationDrift file \/var\/lib\/kubelet\/config\/kubelet: content/,
    );
    expect(events[1]).to.equal('Normal ConfigurationDriftRepaired repaired 1 drift(s)');
    expect(condition()).to.include({ status: 'False', reason: 'DriftRepaired' });
    const metrics = await registry.getSingleMetricAsString('gardener_node_agent_drift_repairs_total');
    expect(metrics).to.contain('result="repaired"} 1');
    expect((await monitor().check())?.found).to.deep.equal([]);
  });

  it('during a rollout not finished on this node: reports only, condition True with why', async () => {
    node = {
      metadata: {
        name: 'node-a',
        annotations: { 'node-configuration.gardener.cloud/permitted-checksum': CHECKSUM },
      },
    };
    writeFileSync(at('var/lib/kubelet/config/kubelet'), 'edited\n');
    const m = monitor();
    await m.check();
    expect(readFileSync(at('var/lib/kubelet/config/kubelet'), 'utf8')).to.equal('edited\n');
    expect(condition()).to.include({ status: 'True', reason: 'DriftReported' });
    expect(condition()?.message).to.contain('a rollout has not finished on this node: report only');
    expect(await registry.getSingleMetricAsString('gardener_node_agent_drifted_paths')).to.contain(
      'action="Repair"} 1',
    );
    // the same drift again: no second event
    await m.check();
    expect(events).to.have.length(1);
  });

  it('on a Node where the rollout halted: reports only', async () => {
    node = {
      metadata: {
        name: 'node-a',
        annotations: { 'node-configuration.gardener.cloud/failed-checksum': CHECKSUM },
      },
    };
    writeFileSync(at('etc/sysctl.d/99-k8s-general.conf'), 'x\n');
    const outcome = await monitor().check();
    expect(outcome?.held).to.contain('halted');
    expect(readFileSync(at('etc/sysctl.d/99-k8s-general.conf'), 'utf8')).to.equal('x\n');
  });

  it('the check at start reports only (the OSC controller applies first); the next one repairs', async () => {
    writeFileSync(at('var/lib/kubelet/config/kubelet'), 'edited\n');
    const m = monitor();
    const stop = new AbortController();
    m.start(stop.signal);
    await eventuallyPasses(() => expect(applied).to.have.length(1)).finally(() => stop.abort());
    expect(readFileSync(at('var/lib/kubelet/config/kubelet'), 'utf8')).to.equal('edited\n');
    expect(condition()).to.include({ status: 'True', reason: 'DriftReported' });
    expect(condition()?.message).to.contain('the agent has just started');
    expect((await m.check())?.repaired).to.equal(true);
    expect(readFileSync(at('var/lib/kubelet/config/kubelet'), 'utf8')).to.contain('maxPods');
  });

  it('a check at start cut short by an apply in flight still counts as the report-only one', async () => {
    const host = new HostRoot(root);
    await writeProgress(host, {
      oscChecksum: CHECKSUM,
      plan: computePlan(undefined, driftOsc()),
      completed: [],
    });
    const m = monitor();
    const stop = new AbortController();
    m.start(stop.signal);
    stop.abort();
    await m.settled(); // the check at start: the apply owns the node, nothing is checked
    await removeProgress(host);
    writeFileSync(at('var/lib/kubelet/config/kubelet'), 'edited\n');
    expect((await m.check())?.repaired).to.equal(true);
  });

  it('started during an apply (as after its own restart), it watches at once and sees an edit after', async function () {
    this.timeout(10_000);
    const host = new HostRoot(root);
    await writeProgress(host, {
      oscChecksum: CHECKSUM,
      plan: computePlan(undefined, driftOsc()),
      completed: [],
    });
    const m = monitor(true);
    const stop = new AbortController();
    m.start(stop.signal);
    try {
      await m.settled(); // the check at start: the apply owns the node
      expect(m.watching?.watchedDirectories).to.be.greaterThan(3);
      await removeProgress(host); // the apply ends
      writeFileSync(at('var/lib/kubelet/config/kubelet'), 'edited\n');
      // the repair writes the file first and reports on the Node after it (and the check its own
      // write triggers may report NoDrift after that)
      await eventuallyPasses(
        () => {
          expect(readFileSync(at('var/lib/kubelet/config/kubelet'), 'utf8')).to.contain('maxPods');
          expect(conditions().map((c) => `${c.status} ${c.reason}`)).to.include('False DriftRepaired');
        },
        5_000,
        20,
      );
    } finally {
      stop.abort();
      // a check still running must not report into the next test's arrays
      await m.settled();
    }
  });

  it('the inotify watch notices an edit without waiting for the periodic check', async function () {
    this.timeout(10_000);
    const m = monitor(true);
    await m.check(); // watches the managed directories
    expect(m.watching?.watchedDirectories).to.be.greaterThan(3);
    const seen = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (events.length > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    writeFileSync(at('etc/sysctl.d/99-k8s-general.conf'), 'x\n');
    await seen;
    m.stop();
    expect(events[0]).to.contain('99-k8s-general.conf: content');
    expect(
      await registry.getSingleMetricAsString('gardener_node_agent_drift_detection_latency_seconds'),
    ).to.contain('_count 1');
  });
});
