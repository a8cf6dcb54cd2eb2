/**
 * The shoot's admission policies under attack, on the node identity landscape (a real
 * kube-apiserver with the node agent authorizer and NodeRestriction, the policies applied by the
 * controller-manager as in a landscape): a node agent cannot take over another Node's Event by
 * patching it into one about its own Node, cannot write any status field of its Node but the
 * addresses and its own condition types, nor its Node's metadata through the status subresource,
 * nor its spec but a cordon; the kubelet of a node cannot
 * give its Node the rollout gate's permission, which only the seed writes.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  CORDONED_BY_AGENT_ANNOTATION,
  LABEL,
  NODE_AGENT_GROUP,
  nodeAgentUserName,
  PERMITTED_CHECKSUM_ANNOTATION,
} from '../../api/index.js';
import {
  NODE_SPEC_FIELDS_NOT_OWNED,
  NODE_STATUS_FIELDS_NOT_OWNED,
} from '../../charts/managed-resource/node-agent-admission-policy.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type NodeIdentityLandscape, nodeIdentityLandscape } from './node-identity-landscape.js';

/** The refusal `run` gets: the admission policy's message, or undefined when it was allowed. */
async function refusal(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
    return undefined;
  } catch (e) {
    if (isApiStatus(e, 403) && /ValidatingAdmissionPolicy/.test(String(e))) return String(e);
    throw e;
  }
}

/** One sample value per status field the agent does not own, each different from a new Node's. */
const STATUS_SAMPLES: Record<(typeof NODE_STATUS_FIELDS_NOT_OWNED)[number], unknown> = {
  capacity: { cpu: '7' },
  allocatable: { cpu: '7' },
  phase: 'Terminated',
  conditions: [{ type: 'Ready', status: 'False', reason: 'Policy', message: 'm' }],
  daemonEndpoints: { kubeletEndpoint: { Port: 10999 } },
  nodeInfo: {
    machineID: 'x',
    systemUUID: 'x',
    bootID: 'x',
    kernelVersion: 'x',
    osImage: 'x',
    containerRuntimeVersion: 'x',
    kubeletVersion: 'x',
    kubeProxyVersion: 'x',
    operatingSystem: 'linux',
    architecture: 'amd64',
  },
  images: [{ names: ['registry.example/evil:1'], sizeBytes: 1 }],
  volumesInUse: ['kubernetes.io/csi/driver^volume'],
  volumesAttached: [{ name: 'kubernetes.io/csi/driver^volume', devicePath: '/dev/x' }],
  config: { error: 'policy' },
  runtimeHandlers: [{ name: 'evil', features: { recursiveReadOnlyMounts: true } }],
  features: { supplementalGroupsPolicy: true },
};

describe('node agent admission policies', function () {
  this.timeout(300_000);
  const id = Date.now().toString(36);
  const nodeA = `policy-a-${id}`;
  const nodeB = `policy-b-${id}`;
  const kubeletNew = `policy-k-${id}`;
  let l: NodeIdentityLandscape;
  let core: CoreV1Api;
  let admin: KubeClient;
  let agent: KubeClient;
  let kubelet: KubeClient;

  before(async function () {
    this.timeout(20 * 60_000);
    l = await nodeIdentityLandscape();
    core = l.shoot.kubeConfig.makeApiClient(CoreV1Api);
    admin = new KubeClient(new KubeHttp(l.shoot.kubeConfig));
    for (const name of [nodeA, nodeB])
      await core.createNode({
        body: { metadata: { name, labels: { [LABEL.hostname]: name, [LABEL.workerPool]: 'cpu-worker' } } },
      });
    agent = new KubeClient(
      new KubeHttp(await l.shoot.kubeConfigForUser(nodeAgentUserName(nodeA), [NODE_AGENT_GROUP])),
    );
    kubelet = new KubeClient(
      new KubeHttp(await l.shoot.kubeConfigForUser(`system:node:${nodeA}`, ['system:nodes'])),
    );
  });

  after(async () => {
    for (const name of [nodeA, nodeB, kubeletNew]) await core?.deleteNode({ name }).catch(() => undefined);
    await agent?.http.close();
    await kubelet?.http.close();
    await admin?.http.close();
  });

  const event = (name: string, node: string) => ({
    metadata: { name, namespace: 'default' },
    involvedObject: { apiVersion: 'v1', kind: 'Node', name: node },
    reason: 'Policy',
    message: 'admission policy test',
    type: 'Normal',
    count: 1,
  });

  it("refuses an agent patching another Node's Event into one about its own Node", async () => {
    const theirs = `${nodeB}.policy-${id}`;
    await admin.create(RESOURCE.event, event(theirs, nodeB));
    const refused = await refusal(() =>
      agent.mergePatch(
        RESOURCE.event,
        { name: theirs, namespace: 'default' },
        { involvedObject: { name: nodeA }, message: 'now about node A' },
      ),
    );
    expect(refused).to.match(/may change only events about its own Node/);
    const unchanged = await admin.get<{ involvedObject: { name: string } }>(RESOURCE.event, {
      name: theirs,
      namespace: 'default',
    });
    expect(unchanged.involvedObject.name).to.equal(nodeB);
    // its own Events it records and aggregates (a patch of the count) as before
    const mine = `${nodeA}.policy-${id}`;
    await agent.create(RESOURCE.event, event(mine, nodeA));
    expect(
      await refusal(() =>
        agent.mergePatch(RESOURCE.event, { name: mine, namespace: 'default' }, { count: 2 }),
      ),
    ).to.equal(undefined);
  });

  it('lists every status field of a Node the API server serves but the addresses, every spec field but unschedulable', async () => {
    const openapi = await admin.http.get({ path: '/openapi/v3/api/v1' });
    const doc = (await openapi.body.json()) as {
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const served = (kind: string, owned: string) =>
      Object.keys(doc.components.schemas[`io.k8s.api.core.v1.${kind}`]?.properties ?? {})
        .filter((f) => f !== owned)
        .sort();
    expect(served('NodeStatus', 'addresses')).to.deep.equal([...NODE_STATUS_FIELDS_NOT_OWNED].sort());
    expect(served('NodeSpec', 'unschedulable')).to.deep.equal([...NODE_SPEC_FIELDS_NOT_OWNED].sort());
  });

  for (const field of NODE_STATUS_FIELDS_NOT_OWNED)
    it(`refuses an agent writing its Node's status.${field}`, async () => {
      const statusOf = async () =>
        JSON.stringify(
          (await admin.get<{ status?: Record<string, unknown> }>(RESOURCE.node, { name: nodeA })).status?.[
            field
          ],
        );
      const before = await statusOf();
      const refused = await refusal(() =>
        agent.mergePatch(
          RESOURCE.node,
          { name: nodeA },
          { status: { [field]: STATUS_SAMPLES[field] } },
          { subresource: 'status' },
        ),
      );
      // the API server itself drops what it no longer keeps (status.config since dynamic kubelet
      // configuration went away): then there is no change to refuse
      if (refused === undefined) expect(await statusOf(), `status.${field} changed`).to.equal(before);
      else
        expect(refused).to.match(
          /may change only the addresses and the conditions SystemdUnitsReady, NodeConfigurationDrift/,
        );
    });

  it('lets an agent cordon and uncordon its own Node, marked as its own cordon, and nothing more of the spec', async () => {
    const cordon = (name: string, on: boolean) =>
      agent.mergePatch(
        RESOURCE.node,
        { name },
        {
          metadata: { annotations: { [CORDONED_BY_AGENT_ANNOTATION]: on ? 'true' : null } },
          spec: { unschedulable: on ? true : null },
        },
      );
    expect(await refusal(() => cordon(nodeA, true))).to.equal(undefined);
    const live = await admin.get<{ spec?: { unschedulable?: boolean } }>(RESOURCE.node, { name: nodeA });
    expect(live.spec?.unschedulable).to.equal(true);
    expect(await refusal(() => cordon(nodeA, false))).to.equal(undefined);
    // another Node is the authorizer's to refuse, before admission
    const theirs = await cordon(nodeB, true).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiStatus(theirs, 403) && String(theirs)).to.match(/may access only its own Node/);
    for (const spec of [
      { taints: [{ key: 'evil', effect: 'NoSchedule' }] },
      { providerID: 'aws:///evil' },
      { podCIDR: '10.9.0.0/24', podCIDRs: ['10.9.0.0/24'] },
    ])
      expect(
        await refusal(() =>
          agent.mergePatch(RESOURCE.node, { name: nodeA }, { spec: { ...spec, unschedulable: true } }),
        ),
        JSON.stringify(spec),
      ).to.match(/may change only spec.unschedulable/);
  });

  it("lets an agent report its own condition types, never change the kubelet's", async () => {
    type Condition = { type: string; status: string };
    const condition = (type: string, status: string) => ({
      type,
      status,
      reason: 'Policy',
      message: 'admission policy test',
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    });
    const status = { subresource: 'status' } as const;
    const conditions = async () =>
      (await admin.get<{ status?: { conditions?: Condition[] } }>(RESOURCE.node, { name: nodeA })).status
        ?.conditions ?? [];
    // the kubelet's condition, as the kubelet reports it
    await admin.mergePatch(
      RESOURCE.node,
      { name: nodeA },
      { status: { conditions: [condition('Ready', 'True')] } },
      status,
    );
    const kubelets = await conditions();
    // a merge patch replaces the list: the agent sends the kubelet's unchanged beside its own
    const write = (list: unknown[]) =>
      refusal(() =>
        agent.mergePatch(RESOURCE.node, { name: nodeA }, { status: { conditions: list } }, status),
      );
    expect(await write([...kubelets, condition('SystemdUnitsReady', 'False')])).to.equal(undefined);
    const summary = async () => (await conditions()).map((c) => `${c.type}=${c.status}`).sort();
    expect(await summary()).to.deep.equal(['Ready=True', 'SystemdUnitsReady=False']);
    const refusedText =
      /may change only the addresses and the conditions SystemdUnitsReady, NodeConfigurationDrift/;
    expect(await write([condition('Ready', 'False'), condition('SystemdUnitsReady', 'True')])).to.match(
      refusedText,
    );
    expect(await write([condition('SystemdUnitsReady', 'True')]), 'dropping Ready').to.match(refusedText);
    expect(await summary()).to.deep.equal(['Ready=True', 'SystemdUnitsReady=False']);
  });

  it("lets an agent write its Node's status addresses", async () => {
    expect(
      await refusal(() =>
        agent.mergePatch(
          RESOURCE.node,
          { name: nodeA },
          { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.9' }] } },
          { subresource: 'status' },
        ),
      ),
    ).to.equal(undefined);
  });

  it("refuses an agent changing its Node's labels or annotations through the status subresource", async () => {
    const status = { subresource: 'status' } as const;
    expect(
      await refusal(() =>
        agent.mergePatch(
          RESOURCE.node,
          { name: nodeA },
          { metadata: { labels: { [LABEL.workerPool]: 'gpu-worker' } } },
          status,
        ),
      ),
    ).to.match(/only these labels/);
    expect(
      await refusal(() =>
        agent.mergePatch(
          RESOURCE.node,
          { name: nodeA },
          { metadata: { annotations: { [PERMITTED_CHECKSUM_ANNOTATION]: 'forged' } } },
          status,
        ),
      ),
    ).to.match(/only these annotations/);
    const live = await admin.get<{ metadata: { labels: Record<string, string> } }>(RESOURCE.node, {
      name: nodeA,
    });
    expect(live.metadata.labels[LABEL.workerPool]).to.equal('cpu-worker');
  });

  it("refuses the kubelet setting, changing or removing its Node's rollout permission", async () => {
    const permit = (value: string | null) => ({
      metadata: { annotations: { [PERMITTED_CHECKSUM_ANNOTATION]: value } },
    });
    // the policy is compiled a moment after the controller-manager applied it
    const refused = await eventually(
      "the kubelet's policy in force",
      () => refusal(() => kubelet.mergePatch(RESOURCE.node, { name: nodeA }, permit(`forged-${Date.now()}`))),
      60_000,
      250,
    );
    expect(refused).to.match(/only the seed writes it/);
    expect(
      await refusal(() =>
        kubelet.mergePatch(RESOURCE.node, { name: nodeA }, permit('forged'), { subresource: 'status' }),
      ),
    ).to.match(/only the seed writes it/);
    // the seed's permission stays as the seed wrote it
    await admin.mergePatch(RESOURCE.node, { name: nodeA }, permit('seed'));
    expect(
      await refusal(() => kubelet.mergePatch(RESOURCE.node, { name: nodeA }, permit('forged'))),
    ).to.match(/only the seed writes it/);
    expect(await refusal(() => kubelet.mergePatch(RESOURCE.node, { name: nodeA }, permit(null)))).to.match(
      /only the seed writes it/,
    );
    // what a kubelet writes on its Node otherwise goes through
    expect(
      await refusal(() =>
        kubelet.mergePatch(
          RESOURCE.node,
          { name: nodeA },
          {
            metadata: { annotations: { 'node.alpha.kubernetes.io/ttl': '0' } },
          },
        ),
      ),
    ).to.equal(undefined);
  });

  it('refuses a kubelet registering its Node with the rollout permission', async () => {
    const own = new KubeClient(
      new KubeHttp(await l.shoot.kubeConfigForUser(`system:node:${kubeletNew}`, ['system:nodes'])),
    );
    try {
      const node = (annotations: Record<string, string>) => ({
        metadata: { name: kubeletNew, labels: { [LABEL.hostname]: kubeletNew }, annotations },
      });
      expect(
        await refusal(() => own.create(RESOURCE.node, node({ [PERMITTED_CHECKSUM_ANNOTATION]: 'forged' }))),
      ).to.match(/only the seed writes it/);
      expect(await refusal(() => own.create(RESOURCE.node, node({})))).to.equal(undefined);
    } finally {
      await own.http.close();
    }
  });
});
