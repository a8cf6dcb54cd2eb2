/**
 * The drift monitor against a real API server: the condition `NodeConfigurationDrift` and the
 * Events on the agent's Node for a drift it repairs, and for a drifted node in a rollout wave that
 * has not reached it (reported, not repaired).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { PERMITTED_CHECKSUM_ANNOTATION } from '../../api/index.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { MemorySystemd } from '../../hack/node-agent-doubles/memory-systemd.js';
import { driftMetrics } from '../../node-agent/controllers/drift/drift-metrics.js';
import { DriftMonitor } from '../../node-agent/controllers/drift/drift-monitor.js';
import { DirectoryImageExtractor } from '../../node-agent/registry/directory-extractor.js';
import { EventRecorder } from '../../runtime/events.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { driftOsc } from '../node-agent/drift/drift-fixture.js';
import { applyTo } from '../node-agent/support/apply-fixture.js';

describe('node agent drift monitor against a real API server', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let dir: string;
  const suffix = Date.now().toString(36);
  const nodes: string[] = [];

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    dir = mkdtempSync(join(tmpdir(), 'gna-drift-env-'));
  });

  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    for (const name of nodes) await core?.deleteNode({ name }).catch(() => undefined);
  });

  /** A Node with `annotations`, a root with the fixture OSC applied, and a monitor for both. */
  async function nodeWithMonitor(name: string, annotations: Record<string, string> = {}) {
    const nodeName = `drift-${name}-${suffix}`;
    nodes.push(nodeName);
    await core.createNode({ body: { metadata: { name: nodeName, annotations } } });
    const root = mkdtempSync(join(dir, `${name}-`));
    const images = mkdtempSync(join(dir, `${name}-images-`));
    const systemd = new MemorySystemd();
    await applyTo(root, driftOsc(), images, { systemd });
    let node: V1Node | undefined;
    const http = new KubeHttp(env.kubeConfig);
    const monitor = new DriftMonitor({
      root,
      systemd,
      images: new DirectoryImageExtractor(images),
      node: () => node,
      client: new KubeClient(http),
      recorder: new EventRecorder({ http, component: 'gardener-node-agent', host: nodeName }),
      metrics: driftMetrics(new Registry()),
      hostName: nodeName,
      intervalMs: 60_000,
      watch: false,
    });
    const check = async () => {
      node = await core.readNode({ name: nodeName });
      return monitor.check();
    };
    const condition = async () =>
      (await core.readNodeStatus({ name: nodeName })).status?.conditions?.find(
        (c) => c.type === 'NodeConfigurationDrift',
      );
    const events = async () =>
      (await core.listEventForAllNamespaces({ fieldSelector: `involvedObject.name=${nodeName}` })).items;
    return { root, nodeName, check, condition, events };
  }

  it('repairs a drift: a Warning Event for it, one for the repair, the condition False (DriftRepaired)', async () => {
    const n = await nodeWithMonitor('repair');
    // kubelet's own condition, which the drift condition must leave as it is
    await new KubeClient(new KubeHttp(env.kubeConfig)).mergePatch(
      RESOURCE.node,
      { name: n.nodeName },
      { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok' }] } },
      { subresource: 'status', fieldManager: 'kubelet' },
    );
    writeFileSync(join(n.root, 'var/lib/kubelet/config/kubelet'), 'edited\n');
    const outcome = await n.check();
    expect(outcome?.repaired).to.equal(true);
    expect(readFileSync(join(n.root, 'var/lib/kubelet/config/kubelet'), 'utf8')).to.contain('maxPods');
    const condition = await eventually('the drift condition', n.condition);
    expect(condition).to.include({ status: 'False', reason: 'DriftRepaired' });
    expect(condition.message).to.contain('/var/lib/kubelet/config/kubelet: content');
    const events = await eventually('two events', async () =>
      (await n.events()).length >= 2 ? n.events() : undefined,
    );
    expect(events.map((e) => `${e.type} ${e.reason}`).sort()).to.deep.equal([
      'Normal ConfigurationDriftRepaired',
      'Warning ConfigurationDrift',
    ]);
    const all = (await core.readNodeStatus({ name: n.nodeName })).status?.conditions ?? [];
    expect(all.map((c) => c.type).sort()).to.deep.equal(['NodeConfigurationDrift', 'Ready']);
    const second = await n.check();
    expect(second?.found).to.deep.equal([]);
    expect(await n.condition()).to.include({ status: 'False', reason: 'NoDrift' });
  });

  it('a drifted node in a rollout wave that has not reached it: reported (True), not repaired', async () => {
    const n = await nodeWithMonitor('wave', { [PERMITTED_CHECKSUM_ANNOTATION]: 'b'.repeat(64) });
    writeFileSync(join(n.root, 'etc/sysctl.d/99-k8s-general.conf'), 'x\n');
    await n.check();
    expect(readFileSync(join(n.root, 'etc/sysctl.d/99-k8s-general.conf'), 'utf8')).to.equal('x\n');
    const condition = await eventually('the drift condition', n.condition);
    expect(condition).to.include({ status: 'True', reason: 'DriftReported' });
    expect(condition.message).to.contain('a rollout has not finished on this node: report only');
    const events = await eventually('an event', async () =>
      (await n.events()).length >= 1 ? n.events() : undefined,
    );
    expect(events.map((e) => e.reason)).to.deep.equal(['ConfigurationDrift']);
  });
});
