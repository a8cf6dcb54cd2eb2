/**
 * A shoot whose kube-apiserver authorizes node agents through the controller-manager, as a
 * landscape with per-node identities runs it: the seed envtest; a shoot envtest started with the
 * structured authorization configuration (Node, the node agent authorizer webhook, RBAC) and
 * NodeRestriction; the controller-manager in direct mode (it applies the OSC secrets and the
 * admission policy into the shoot itself), serving the authorizer on a free port with its own
 * serving certificate, approving node agent CSRs; and the signer standing in for the
 * kube-controller-manager's. Started once per run and shared by the suites that need it.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { CoreV1Api } from '@kubernetes/client-node';
import { LABEL, LABEL_VALUE, NODE_AGENT_GROUP, nodeAgentUserName } from '../../api/index.js';
import { authorizerEndpoint } from '../../hack/landscape/authorizer-endpoint.js';
import { createShootFixture, type ShootFixture } from '../../hack/landscape/controller-manager-fixture.js';
import { type CsrSigner, type ServingCertificate, startCsrSigner } from '../../hack/landscape/csr-signer.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import type { RunningManager } from '../../seed/manager/run-manager.js';

export interface NodeIdentityLandscape {
  readonly seed: Envtest;
  readonly shoot: Envtest;
  readonly fixture: ShootFixture;
  readonly manager: RunningManager;
  readonly signer: CsrSigner;
  readonly tls: ServingCertificate;
  /** The OSC secret names in the shoot, by pool. */
  readonly oscSecrets: ReadonlyMap<string, string>;
}

let running: Promise<NodeIdentityLandscape> | undefined;
let cleanUp: (() => Promise<void>) | undefined;

async function start(): Promise<NodeIdentityLandscape> {
  const id = randomBytes(3).toString('hex');
  const endpoint = await authorizerEndpoint({ shootNamespace: `shoot--it--${id}` });
  const { tls } = endpoint;
  // a seed of its own: its controller-manager runs for the whole test run, and on a shared seed it
  // would hand over (remove the finalizer of) every Cluster another suite's controller-manager selects
  const seed = await startEnvtest({ name: 'seed-node-identity' });
  const shoot = await startEnvtest({
    name: 'shoot-node-identity',
    ...endpoint.envtest,
    admissionPlugins: ['NodeRestriction'],
  });
  requireClusterScopedWrites(shoot);
  const fixture = await createShootFixture(seed, shoot, 'direct', id);
  const signer = startCsrSigner(shoot);
  cleanUp = async () => {
    await fixture.cleanUp();
    await signer.stop();
    rmSync(tls.dir, { recursive: true, force: true });
  };
  const manager = await fixture.start(
    fixture.config({
      nodeAgent: { identity: 'node', authorizer: endpoint.serving },
    }),
  );
  // the controller-manager renders and applies every pool's OSC secret into the shoot
  const core = shoot.kubeConfig.makeApiClient(CoreV1Api);
  const oscSecrets = new Map<string, string>();
  await eventually(
    'an OSC secret of every pool in the shoot',
    async () => {
      const list = await core.listNamespacedSecret({
        namespace: 'kube-system',
        labelSelector: `${LABEL.gardenerRole}=${LABEL_VALUE.roleOperatingSystemConfig}`,
      });
      for (const s of list.items)
        oscSecrets.set(s.metadata?.labels?.[LABEL.workerPool] ?? '', s.metadata?.name ?? '');
      return oscSecrets.size >= 3;
    },
    120_000,
  );
  await admissionPolicyInForce(shoot, id);
  return { seed, shoot, fixture, manager, signer, tls, oscSecrets };
}

/**
 * Waits until the node agents' admission policy the controller-manager applied is enforced (the
 * API server compiles it after it appears): a probe agent changing a label it does not own on its
 * own Node is refused.
 */
async function admissionPolicyInForce(shoot: Envtest, id: string): Promise<void> {
  const probe = `policy-probe-${id}`;
  const core = shoot.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNode({ body: { metadata: { name: probe } } });
  const agent = new KubeClient(
    new KubeHttp(await shoot.kubeConfigForUser(nodeAgentUserName(probe), [NODE_AGENT_GROUP])),
  );
  try {
    await eventually(
      'the node agent admission policy in force',
      () =>
        // a new value every time: a patch that changes nothing is no change to refuse
        agent
          .mergePatch(RESOURCE.node, { name: probe }, { metadata: { labels: { probe: `${Date.now()}` } } })
          .then(
            () => false,
            (e: unknown) => isApiStatus(e, 403) && /ValidatingAdmissionPolicy/.test(String(e)),
          ),
      60_000,
      250,
    );
  } finally {
    await agent.http.close();
    await core.deleteNode({ name: probe }).catch(() => undefined);
  }
}

/** The landscape, started on first use. */
export function nodeIdentityLandscape(): Promise<NodeIdentityLandscape> {
  running ??= start();
  return running;
}

/** Stops the landscape (registered as a root hook by the suites using it). */
export async function stopNodeIdentityLandscape(): Promise<void> {
  const done = cleanUp;
  running = undefined;
  cleanUp = undefined;
  await done?.();
}
