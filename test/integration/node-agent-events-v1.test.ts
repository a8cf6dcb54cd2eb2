/**
 * The events of a v1.150.0 node agent against a real API server: gardener v1.150.0's agent records
 * through events.k8s.io/v1 (`mgr.GetEventRecorder(<controller>)`), so each kind ours emits there
 * (the OSC applied, unit jobs, health checks) appears as an events.k8s.io/v1 Event with its
 * reporting controller and instance, action, reason, note and the Node as `regarding`; a repeat
 * becomes a series. A v1.91.4 node's recorder stays core/v1.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, EventsV1Api, type EventsV1Event } from '@kubernetes/client-node';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { sha256Hex } from '../../api/index.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { IMAGE_FILES, oscV1, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { MemorySystemd } from '../../hack/node-agent-doubles/memory-systemd.js';
import { nodeEventSink } from '../../node-agent/agent/event-sinks.js';
import { recordingUnitEvents } from '../../node-agent/agent/unit-events.js';
import { nodeEvent } from '../../node-agent/controllers/healthcheck/checker.js';
import { addOscController } from '../../node-agent/controllers/operatingsystemconfig/add.js';
import { DirectoryImageExtractor } from '../../node-agent/registry/directory-extractor.js';
import { realClock } from '../../runtime/clock.js';
import { EventRecorder } from '../../runtime/events.js';
import { EventsV1Recorder } from '../../runtime/events-v1.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { silentLogger } from '../../runtime/logging.js';
import { runtimeMetrics } from '../../runtime/metrics.js';

describe('node agent events.k8s.io/v1 events against a real API server', function () {
  this.timeout(120_000);
  let env: Envtest;
  let core: CoreV1Api;
  let eventsApi: EventsV1Api;
  let root: string;
  let images: string;
  const stop = new AbortController();
  const secretName = `gardener-node-agent-events-${Date.now().toString(36)}`;
  const nodeName = `node-events-${Date.now().toString(36)}`;

  before(async function () {
    this.timeout(20 * 60_000);
    env = await startEnvtest({ name: 'shoot' });
    requireClusterScopedWrites(env);
    core = env.kubeConfig.makeApiClient(CoreV1Api);
    eventsApi = env.kubeConfig.makeApiClient(EventsV1Api);
    root = mkdtempSync(join(tmpdir(), 'gna-root-'));
    images = mkdtempSync(join(tmpdir(), 'gna-images-'));
    for (const [image, files] of Object.entries(IMAGE_FILES)) {
      for (const [path, content] of Object.entries(files)) {
        const target = join(images, encodeURIComponent(image), path);
        mkdirSync(join(target, '..'), { recursive: true });
        writeFileSync(target, content);
      }
    }
    await core.createNode({
      body: { metadata: { name: nodeName, labels: { 'kubernetes.io/hostname': nodeName } } },
    });
  });

  after(async () => {
    stop.abort();
    rmSync(root, { recursive: true, force: true });
    rmSync(images, { recursive: true, force: true });
    await core?.deleteNode({ name: nodeName }).catch(() => undefined);
    await core?.deleteNamespacedSecret({ name: secretName, namespace: 'kube-system' }).catch(() => undefined);
  });

  const eventsOfNode = async (): Promise<EventsV1Event[]> =>
    (await eventsApi.listNamespacedEvent({ namespace: 'default' })).items.filter(
      (e) => e.regarding?.name === nodeName,
    );

  it('records the OSC applied, unit jobs and health checks as events.k8s.io/v1 events about the Node', async () => {
    const yaml = yamlOf(oscV1());
    await core.createNamespacedSecret({
      namespace: 'kube-system',
      body: {
        metadata: {
          name: secretName,
          namespace: 'kube-system',
          annotations: { 'checksum/data-script': sha256Hex(yaml) },
        },
        data: { 'osc.yaml': Buffer.from(yaml).toString('base64') },
      },
    });
    const http = new KubeHttp(env.kubeConfig);
    const sink = (controller: string) =>
      nodeEventSink({
        contract: 'v1.150.0',
        http,
        component: 'gardener-node-agent',
        controller,
        nodeOrHost: nodeName,
        hostName: 'host-a',
      });
    expect(sink('x')).to.be.instanceOf(EventsV1Recorder);
    expect(
      nodeEventSink({
        ...{ http, component: 'c', controller: 'c', nodeOrHost: 'n', hostName: 'h' },
        contract: 'v1.91.4',
      }),
    ).to.be.instanceOf(EventRecorder);
    const oscEvents = sink('operatingsystemconfig');
    let node = await core.readNode({ name: nodeName });
    const systemd = recordingUnitEvents(new MemorySystemd(), oscEvents, () => node);
    const agent = addOscController(
      {
        http,
        client: new KubeClient(http),
        secretName,
        nodeName,
        hostName: nodeName,
        kubernetesVersion: '1.2.3',
        syncPeriodMs: 600_000,
        root,
        systemd,
        images: new DirectoryImageExtractor(images),
        recorder: oscEvents,
        restartSelf: () => undefined,
        metrics: runtimeMetrics(new Registry()),
      },
      stop.signal,
    );
    await agent.synced();
    await eventually('the node checksum', async () => {
      node = await core.readNode({ name: nodeName });
      return node.metadata?.annotations?.['checksum/cloud-config-data'] === sha256Hex(yaml)
        ? node
        : undefined;
    });
    const health = sink('health-check');
    const deps = { systemd, events: health, clock: realClock, log: silentLogger };
    nodeEvent(deps, node, 'Warning', 'kubelet', 'Kubelet is unhealthy, health check error: refused');
    nodeEvent(deps, node, 'Warning', 'kubelet', 'Kubelet is unhealthy, health check error: refused again');

    const events = await eventually('the events', async () => {
      const items = await eventsOfNode();
      const reasons = new Set(items.map((e) => e.reason));
      const series = items.find((e) => e.reason === 'kubelet')?.series;
      return reasons.has('OSCApplied') && reasons.has('SystemDUnitRestart') && series?.count === 2
        ? items
        : undefined;
    });
    const applied = events.find((e) => e.reason === 'OSCApplied')!;
    expect(applied).to.deep.include({
      reportingController: 'operatingsystemconfig',
      reportingInstance: 'operatingsystemconfig-host-a',
      action: 'Reconcile',
      note: 'Operating system config has been applied successfully',
      type: 'Normal',
    });
    expect(applied.regarding).to.deep.include({ kind: 'Node', name: nodeName, uid: node.metadata?.uid });
    expect(String(applied.eventTime)).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const restart = events.find((e) => e.reason === 'SystemDUnitRestart')!;
    expect(restart).to.deep.include({
      reportingController: 'operatingsystemconfig',
      action: 'restart',
      type: 'Normal',
    });
    expect(restart.note).to.match(/^processed restart of unit \S+$/);
    const kubelet = events.find((e) => e.reason === 'kubelet')!;
    expect(kubelet).to.deep.include({
      reportingController: 'health-check',
      reportingInstance: 'health-check-host-a',
      action: 'HealthCheck',
      note: 'Kubelet is unhealthy, health check error: refused',
      type: 'Warning',
    });
    expect(events.filter((e) => e.reason === 'kubelet')).to.have.length(1);
    // one storage, two views: the core/v1 view shows what only the events.k8s.io/v1 API writes
    const coreView = (await core.listNamespacedEvent({ namespace: 'default' })).items.find(
      (e) => e.involvedObject.name === nodeName && e.reason === 'OSCApplied',
    );
    expect(coreView).to.deep.include({ action: 'Reconcile', reportingComponent: 'operatingsystemconfig' });
    expect(coreView?.source ?? {}, 'no core/v1 source').to.deep.equal({});
  });
});
