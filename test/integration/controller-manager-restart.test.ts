/**
 * A restarted controller-manager writes nothing when nothing changed: the node status it reported
 * on a Cluster before is read back from the Cluster's events, not reported again.
 */
import { expect } from 'chai';
import { createShootFixture, type ShootFixture } from '../../hack/landscape/controller-manager-fixture.js';
import {
  type Envtest,
  readAuditEvents,
  requireClusterScopedWrites,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { clusterEventsSelector } from '../../seed/manager/context.js';
import type { RunningManager } from '../../seed/manager/run-manager.js';

interface WireEvent {
  metadata: { name: string };
  reason?: string;
  count?: number;
}

const NODE_STATUS = ['NodesUpdated', 'NodesOutdated'];

describe('controller-manager restarted with nothing changed', function () {
  this.timeout(180_000);
  let seed: Envtest;
  let shoot: Envtest;
  let f: ShootFixture;
  let http: KubeHttp;

  before(async function () {
    this.timeout(20 * 60_000);
    [seed, shoot] = await Promise.all([
      startEnvtest({ name: 'restart-seed' }),
      startEnvtest({ name: 'restart-shoot' }),
    ]);
    requireClusterScopedWrites(seed);
    f = await createShootFixture(seed, shoot, 'managedResource');
    http = new KubeHttp(seed.kubeConfig);
  });
  after(async () => {
    await f?.cleanUp();
    await http?.close();
  });

  const nodeStatusEvents = async () =>
    (
      await new KubeClient(http).list<WireEvent>(RESOURCE.event, {
        namespace: 'default',
        fieldSelector: clusterEventsSelector(f.namespace),
      })
    ).filter((e) => NODE_STATUS.includes(e.reason ?? ''));

  /** Resolves once the process reported the shoot's node status (its gauges exist). */
  const nodeStatusKnown = (manager: RunningManager) =>
    eventually(
      'the node status of the shoot',
      async () => {
        const text = await (await fetch(`${manager.metrics.url}/metrics`)).text();
        return text.includes(`gardener_osc_nodes_outdated{namespace="${f.namespace}"}`);
      },
      60_000,
    );

  it('reports the unchanged node status once, and not again after a restart', async () => {
    const first = await f.start(f.config());
    await nodeStatusKnown(first);
    const reported = await eventually('a node status event', async () => {
      const events = await nodeStatusEvents();
      return events.length > 0 ? events : undefined;
    });
    expect(reported).to.have.length(1);
    first.stop();
    await first.stopped;

    const restartedAt = Date.now();
    const second = await f.start(f.config());
    await nodeStatusKnown(second);
    await sleep(2_000);
    // the same single event, neither created again nor counted up
    expect((await nodeStatusEvents()).map((e) => [e.metadata.name, e.count])).to.deep.equal(
      reported.map((e) => [e.metadata.name, e.count]),
    );
    const audit = readAuditEvents(seed) as (ReturnType<typeof readAuditEvents>[number] & {
      objectRef?: { resource?: string };
      requestReceivedTimestamp: string;
    })[];
    const eventWrites = audit.filter(
      (e) =>
        e.stage === 'ResponseComplete' &&
        ['create', 'patch', 'update'].includes(e.verb) &&
        e.objectRef?.resource === 'events' &&
        Date.parse(e.requestReceivedTimestamp) >= restartedAt,
    );
    expect(eventWrites.map((e) => e.requestURI)).to.deep.equal([]);
  });
});
