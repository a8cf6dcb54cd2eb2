/**
 * The seed controllers for a Cluster of the Gardener v1.150.0 contract, on real API servers and
 * agents: there gardener-resource-manager owns the reconciliation delay and node agent CSR
 * approval, so our node-delay writes no delay and the CSR approver approves nothing, while the
 * rollout gate still takes a change out canary first. With `inV150Mode` on, both act again
 * (controllers/left-to-resource-manager.ts, docs/controller-manager.md).
 */
import { CertificatesV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { ANNOTATION, GARDENER_VERSION_ANNOTATION, PERMITTED_CHECKSUM_ANNOTATION } from '../../api/index.js';
import { seedControllers } from '../../controllers/index.js';
import { createBootstrapToken } from '../../hack/landscape/csr-signer.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { kubeletOsc } from '../../hack/landscape/kubelet-osc.js';
import { requestNodeAgentCertificate } from '../../node-agent/identity/certificate-request.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RestConfig } from '../../runtime/kube/rest-config.js';
import { createLogger, silentLogger } from '../../runtime/logging.js';
import { type RunningManager, runManager } from '../../seed/manager/run-manager.js';
import { RolloutLandscape } from './rollout-fixture.js';

const SETTLE_MS = 2000;
const ROLLOUT = { settleTime: '2s', checkInterval: '500ms', maxPerWave: '100%' };

describe('seed controllers for a v1.150.0 Cluster against real API servers and agents', function () {
  this.timeout(300_000);
  let shoot: Envtest;
  let l: RolloutLandscape;
  let pool: string;
  let manager: RunningManager | undefined;
  let http: KubeHttp | undefined;
  const bootstrappers = `gardener-osc-it-v150-bootstrappers-${Date.now().toString(36)}`;
  const requests = new AbortController();

  /** The controller-manager's shoot controllers (node-delay, rollout, CSR approver, ...) as configured. */
  const startManager = async (inV150Mode: boolean) => {
    const config = l.fixture.config({
      leaderElection: { enabled: false },
      nodeAgent: { identity: 'node' },
      controllers: {
        rollout: ROLLOUT,
        nodeDelay: { inV150Mode },
        nodeAgentCsrApprover: { inV150Mode },
      },
    });
    const log = process.env.TEST_LOG ? createLogger({ level: 'debug', format: 'text' }) : silentLogger;
    manager = await runManager({
      config,
      seed: l.fixture.seedIdentity,
      log,
      controllers: { seed: [], shoot: seedControllers(config).shoot },
    });
  };
  const stopManager = async () => {
    manager?.stop();
    await manager?.stopped;
    manager = undefined;
  };
  const delays = async () =>
    Promise.all(
      l
        .inPool(pool)
        .map(async (n) => (await l.readNode(n.name)).metadata?.annotations?.[ANNOTATION.reconciliationDelay]),
    );
  const certificates = () => shoot.kubeConfig.makeApiClient(CertificatesV1Api);
  /** The node agent CSR a bootstrap token made for `node`, once it exists. */
  const csrFor = async (node: string) => {
    const name = await eventually(`the node agent CSR for ${node}`, () => requested.get(node), 30_000);
    return certificates().readCertificateSigningRequest({ name });
  };
  const requested = new Map<string, string>();

  before(async function () {
    this.timeout(20 * 60_000);
    let seed: Envtest;
    [seed, shoot] = await Promise.all([startEnvtest({ name: 'seed' }), startEnvtest({ name: 'shoot' })]);
    requireClusterScopedWrites(shoot);
    // bootstrap tokens may ask for certificates, as gardenlet's bootstrap ClusterRoleBindings allow
    await shoot.kubeConfig.makeApiClient(RbacAuthorizationV1Api).createClusterRoleBinding({
      body: {
        metadata: { name: bootstrappers },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'system:node-bootstrapper',
        },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:bootstrappers' }],
      },
    });
    l = await RolloutLandscape.create(seed, shoot, 2);
    await l.annotateCluster({ [GARDENER_VERSION_ANNOTATION]: 'v1.150.0' });
    [pool] = l.pools;
    for (const [name, zone] of [
      ['v1', 'a'],
      ['v2', 'b'],
      ['v3', 'c'],
    ] as const)
      await l.addNode(name, pool, zone);
    const cluster = shoot.kubeConfig.getCurrentCluster()!;
    http = new KubeHttp(
      new RestConfig({
        server: cluster.server,
        ca: Buffer.from(cluster.caData!, 'base64'),
        token: await createBootstrapToken(shoot),
      }),
    );
  });

  after(async () => {
    requests.abort();
    await stopManager().catch(() => undefined);
    await http?.close();
    await l?.cleanUp();
    await shoot?.kubeConfig
      .makeApiClient(RbacAuthorizationV1Api)
      .deleteClusterRoleBinding({ name: bootstrappers })
      .catch(() => undefined);
  });

  /** A new machine's agent asks for its identity with the bootstrap token, until the test ends. */
  const askForIdentity = (node: string) => {
    const client = new KubeClient(http!);
    const recording: Pick<KubeClient, 'create' | 'get'> = {
      create: async (resource, body, options) => {
        const created = await client.create(resource, body, options);
        requested.set(node, (created as { metadata: { name: string } }).metadata.name);
        return created;
      },
      get: (resource, ref, options) => client.get(resource, ref, options),
    };
    void requestNodeAgentCertificate({
      client: recording,
      nodeName: node,
      pollIntervalMs: 200,
      signal: requests.signal,
    }).catch(() => undefined);
  };

  it('switch off: no delay annotation, the CSR stays undecided, and a change goes out canary first', async () => {
    await startManager(false);
    const node = `v150-machine-${l.id}`;
    askForIdentity(node);
    const csr = await csrFor(node);
    await l.poolWhen(
      pool,
      'the first configuration everywhere',
      (p) => p.phase === 'Completed' && p.updated === 3,
    );
    const v110 = await l.setOsc(pool, kubeletOsc(110));
    const names = l.inPool(pool).map((n) => n.name);
    const at = new Map<string, number>();
    const deadline = Date.now() + 90_000;
    while (at.size < names.length && Date.now() < deadline) {
      for (const name of names)
        if (!at.has(name) && (await l.applied(name)) === v110) at.set(name, Date.now());
      await sleep(150);
    }
    expect(at.size, 'every node applied').to.equal(3);
    const order = [...at].sort((a, b) => a[1] - b[1]);
    // the canary applied alone; the others only after it passed the gate (settle time)
    expect(order[1]![1] - order[0]![1]).to.be.at.least(SETTLE_MS);
    const waves = (await l.events('RolloutWaveStarted')).filter(
      (e) => e.includes(`pool ${pool}: `) && e.includes(v110.slice(0, 12)),
    );
    expect(waves[0]).to.match(/\(canary\)/);
    expect(/: (\d+) node\(s\)/.exec(waves[0]!)?.[1]).to.equal('1');
    for (const name of names)
      expect((await l.readNode(name)).metadata?.annotations?.[PERMITTED_CHECKSUM_ANNOTATION]).to.equal(v110);
    // all this time, gardener-resource-manager's business was left alone
    expect(await delays()).to.deep.equal([undefined, undefined, undefined]);
    const live = await certificates().readCertificateSigningRequest({ name: csr.metadata!.name! });
    expect(live.status?.conditions ?? []).to.deep.equal([]);
    await stopManager();
  });

  it('switch on (inV150Mode): the same Nodes get their delays and the waiting CSR is approved', async () => {
    await startManager(true);
    const node = `v150-machine-${l.id}`;
    const name = requested.get(node)!;
    const approved = await eventually(
      'the waiting CSR decided',
      async () => {
        const c = await certificates().readCertificateSigningRequest({ name });
        return c.status?.conditions?.length ? c.status.conditions : undefined;
      },
      30_000,
      200,
    );
    expect(approved.map((c) => c.type)).to.deep.equal(['Approved']);
    const written = await eventually(
      'a delay on every Node',
      async () => {
        const d = await delays();
        return d.every((x) => x !== undefined) ? d : undefined;
      },
      30_000,
      200,
    );
    expect(written).to.have.length(3);
    await stopManager();
  });
});
