/**
 * Per-node identities end to end on envtest: a machine's bootstrap token gets the agent its own
 * client certificate (the controller-manager approves, the signer signs), the API server
 * authenticates it as `gardener.cloud:node-agent:machine:<node>`, the real agent runs with it
 * (bootstrapping before its Node exists, then limited to its pool), and renews it without a
 * restart. What the approver refuses: a second identity for one bootstrap token, a registered
 * node's identity for a bootstrap token, someone else's subject.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { Agent, request } from 'undici';
import {
  ANNOTATION,
  LABEL,
  type NodeAgentConfiguration,
  PATH,
  parseGoDuration,
  parseSemVer,
  readOscSecret,
} from '../../api/index.js';
import { runControllerManager } from '../../controllers/index.js';
import { createBootstrapToken } from '../../hack/landscape/csr-signer.js';
import { freePort } from '../../hack/landscape/envtest.js';
import { eventually } from '../../hack/landscape/eventually.js';
import { writeImages } from '../../hack/landscape/image-files.js';
import { MemorySystemd } from '../../hack/node-agent-doubles/memory-systemd.js';
import { type RunningAgent, runAgent } from '../../node-agent/agent/run-agent.js';
import { addCertificateController } from '../../node-agent/controllers/certificate/add.js';
import { requestNodeAgentCertificate } from '../../node-agent/identity/certificate-request.js';
import { certificateValidity } from '../../node-agent/identity/identity-kubeconfig.js';
import { obtainNodeIdentity } from '../../node-agent/identity/obtain-identity.js';
import { DirectoryImageExtractor } from '../../node-agent/registry/directory-extractor.js';
import { realClock } from '../../runtime/clock.js';
import { isApiStatus } from '../../runtime/kube/api-status.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { KubeconfigFileAccess } from '../../runtime/kube/kubeconfig-file.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { RestConfig } from '../../runtime/kube/rest-config.js';
import { createLogger, silentLogger } from '../../runtime/logging.js';
import { type NodeIdentityLandscape, nodeIdentityLandscape } from './node-identity-landscape.js';

const SELF_SUBJECT_REVIEW = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

async function whoAmI(http: KubeHttp): Promise<{ username?: string; groups?: string[] }> {
  const response = await http.send(
    'POST',
    { path: SELF_SUBJECT_REVIEW },
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    },
  );
  const review = (await response.body.json()) as {
    status?: { userInfo?: { username?: string; groups?: string[] } };
  };
  return review.status?.userInfo ?? {};
}

function agentConfig(l: NodeIdentityLandscape, pool: string): NodeAgentConfiguration {
  const cluster = l.shoot.kubeConfig.getCurrentCluster()!;
  return {
    clientConnection: { kubeconfig: PATH.nodeAgentKubeconfig },
    server: {},
    apiServer: { server: cluster.server, caBundle: cluster.caData },
    controllers: {
      operatingSystemConfig: {
        secretName: l.oscSecrets.get(pool)!,
        kubernetesVersion: parseSemVer('1.30.2'),
        syncPeriod: parseGoDuration('10m'),
      },
      token: { syncConfigs: [], syncPeriod: parseGoDuration('1h') },
    },
  };
}

function tokenClient(l: NodeIdentityLandscape, token: string): { http: KubeHttp; client: KubeClient } {
  const cluster = l.shoot.kubeConfig.getCurrentCluster()!;
  const http = new KubeHttp(
    new RestConfig({ server: cluster.server, ca: Buffer.from(cluster.caData!, 'base64'), token }),
  );
  return { http, client: new KubeClient(http) };
}

describe('node agent per-node identity', function () {
  this.timeout(300_000);
  let l: NodeIdentityLandscape;
  let core: CoreV1Api;
  let dir: string;
  const nodes: string[] = [];
  const suffix = Date.now().toString(36);

  before(async function () {
    this.timeout(20 * 60_000);
    l = await nodeIdentityLandscape();
    core = l.shoot.kubeConfig.makeApiClient(CoreV1Api);
    dir = mkdtempSync(join(tmpdir(), 'gna-identity-'));
  });

  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    for (const name of nodes) await core?.deleteNode({ name }).catch(() => undefined);
  });

  const createNode = async (name: string, pool: string) => {
    nodes.push(name);
    await core.createNode({
      body: { metadata: { name, labels: { [LABEL.hostname]: name, [LABEL.workerPool]: pool } } },
    });
  };

  it('gets its own identity with a bootstrap token, which the API server names by the node', async () => {
    const node = `identity-a-${suffix}`;
    const root = join(dir, 'a');
    mkdirSync(join(root, PATH.nodeAgentCredentialsDir), { recursive: true });
    writeFileSync(join(root, PATH.nodeAgentBootstrapToken), await createBootstrapToken(l.shoot));
    await obtainNodeIdentity({
      config: agentConfig(l, 'cpu-worker'),
      root,
      nodeName: node,
      log: silentLogger,
      pollIntervalMs: 200,
    });
    const access = await KubeconfigFileAccess.load(join(root, PATH.nodeAgentKubeconfig));
    const http = new KubeHttp(access);
    try {
      expect(await whoAmI(http)).to.deep.include({
        username: `gardener.cloud:node-agent:machine:${node}`,
      });
      expect((await whoAmI(http)).groups).to.include('gardener.cloud:node-agents');
    } finally {
      await http.close();
    }
  });

  it('a bootstrap token gets one identity, and none for a registered node', async () => {
    const { http, client } = tokenClient(l, await createBootstrapToken(l.shoot));
    try {
      const first = `identity-b-${suffix}`;
      await requestNodeAgentCertificate({ client, nodeName: first, pollIntervalMs: 200 });
      const second = requestNodeAgentCertificate({
        client,
        nodeName: `identity-c-${suffix}`,
        pollIntervalMs: 200,
      });
      expect(String(await second.catch((e: unknown) => e))).to.match(
        /was denied.*already got the identity of identity-b/,
      );
      const registered = `identity-d-${suffix}`;
      await createNode(registered, 'cpu-worker');
      const other = tokenClient(l, await createBootstrapToken(l.shoot));
      try {
        const refused = await requestNodeAgentCertificate({
          client: other.client,
          nodeName: registered,
          pollIntervalMs: 200,
        }).catch((e: unknown) => e);
        expect(String(refused)).to.match(/was denied.*is registered/);
      } finally {
        await other.http.close();
      }
    } finally {
      await http.close();
    }
  });

  it('a name gets one bootstrap identity, for at most the maximum lifetime, which reads nothing once its Node is gone', async () => {
    const name = `identity-e-${suffix}`;
    const first = tokenClient(l, await createBootstrapToken(l.shoot));
    const second = tokenClient(l, await createBootstrapToken(l.shoot));
    let identity: { http: KubeHttp; client: KubeClient } | undefined;
    try {
      const tenYears = await requestNodeAgentCertificate({
        client: first.client,
        nodeName: name,
        expirationSeconds: 10 * 365 * 24 * 3600,
        pollIntervalMs: 200,
      }).catch((e: unknown) => e);
      expect(String(tenYears)).to.match(
        /was denied.*spec.expirationSeconds 315360000 is more than the maximum/,
      );
      const issued = await requestNodeAgentCertificate({
        client: first.client,
        nodeName: name,
        pollIntervalMs: 200,
      });
      // neither the same token nor another one gets the name again (nor a fresh bootstrap window)
      for (const again of [first, second])
        expect(
          String(
            await requestNodeAgentCertificate({
              client: again.client,
              nodeName: name,
              pollIntervalMs: 200,
            }).catch((e: unknown) => e),
          ),
        ).to.match(/was denied.*identity of identity-e-\S+ was already issued/);
      const cluster = l.shoot.kubeConfig.getCurrentCluster()!;
      const http = new KubeHttp(
        new RestConfig({
          server: cluster.server,
          ca: Buffer.from(cluster.caData!, 'base64'),
          clientCertificate: Buffer.from(issued.certificatePem),
          clientKey: Buffer.from(issued.keyPem),
        }),
      );
      identity = { http, client: new KubeClient(http) };
      const read = (pool: string) =>
        identity!.client
          .get(RESOURCE.secret, { name: l.oscSecrets.get(pool)!, namespace: 'kube-system' })
          .then(
            () => 'allowed',
            (e: unknown) => (isApiStatus(e, 403) ? 'denied' : Promise.reject(e)),
          );
      // within its bootstrap window, before its Node exists: any pool
      expect(await read('gpu-worker')).to.equal('allowed');
      await createNode(name, 'cpu-worker');
      await core.deleteNode({ name });
      // the kube-apiserver caches an allowed decision for 5 minutes: ask about a pool not asked before
      expect(
        await eventually('the deleted Node leaves its identity nothing', async () =>
          (await read('arm-worker')) === 'denied' ? 'denied' : undefined,
        ),
      ).to.equal('denied');
    } finally {
      await first.http.close();
      await second.http.close();
      await identity?.http.close();
    }
  });

  for (const [account, path] of [
    ['cloud-config-downloader', PATH.downloaderToken],
    ['gardener-node-agent', PATH.nodeAgentToken],
  ] as const) {
    it(`a running node switches to its identity with the ${account} token it has, which is then removed if the agent's`, async () => {
      const node = `identity-switch-${account}-${suffix}`;
      await createNode(node, 'cpu-worker');
      const root = join(dir, `switch-${account}`);
      const token = (await l.shoot.kubeConfigForServiceAccount('kube-system', account)).getCurrentUser()!
        .token!;
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), token);
      await obtainNodeIdentity({
        config: agentConfig(l, 'cpu-worker'),
        root,
        nodeName: node,
        log: silentLogger,
        pollIntervalMs: 200,
      });
      const http = new KubeHttp(await KubeconfigFileAccess.load(join(root, PATH.nodeAgentKubeconfig)));
      try {
        expect(await whoAmI(http)).to.deep.include({ username: `gardener.cloud:node-agent:machine:${node}` });
      } finally {
        await http.close();
      }
      expect(existsSync(join(root, path))).to.equal(account === 'cloud-config-downloader');
    });
  }

  it('a standby replica answers from its own caches (the authorizer serves on every replica)', async () => {
    const port = await freePort();
    const standby = await runControllerManager({
      config: l.fixture.config({
        nodeAgent: {
          identity: 'node',
          authorizer: {
            bindAddress: '127.0.0.1',
            port,
            certFile: l.tls.certFile,
            keyFile: l.tls.keyFile,
            tokenKeyFile: l.tls.tokenKeyFile,
          },
        },
      }),
      seed: l.fixture.seedIdentity,
      log: silentLogger,
      identity: 'standby',
      healthPort: 0,
      metricsPort: 0,
    });
    const agent = new Agent({ connect: { ca: l.tls.caPem } });
    try {
      const node = `identity-standby-${suffix}`;
      await createNode(node, 'cpu-worker');
      const review = {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: `gardener.cloud:node-agent:machine:${node}`,
          groups: ['gardener.cloud:node-agents'],
          resourceAttributes: { verb: 'get', version: 'v1', resource: 'nodes', name: node },
        },
      };
      const answer = await eventually(
        'an answer of the standby',
        async () => {
          const res = await request(
            `https://127.0.0.1:${port}/webhooks/auth/nodeagent/${l.fixture.namespace}`,
            {
              method: 'POST',
              body: JSON.stringify(review),
              dispatcher: agent,
              // as the shoot's kube-apiserver: with its bearer token
              headers: { authorization: `Bearer ${l.tls.callerToken(l.fixture.namespace)}` },
            },
          );
          const body = (await res.body.json()) as { status?: { allowed?: boolean } };
          return res.statusCode === 200 && body.status?.allowed === true;
        },
        60_000,
        250,
      );
      expect(answer).to.equal(true);
      // anyone else who reaches the endpoint learns nothing about the shoot
      const anonymous = await request(
        `https://127.0.0.1:${port}/webhooks/auth/nodeagent/${l.fixture.namespace}`,
        { method: 'POST', body: JSON.stringify(review), dispatcher: agent },
      );
      expect(anonymous.statusCode).to.equal(401);
      expect(await anonymous.body.text()).not.to.contain(node);
      const lease = await l.fixture.seedObjects.read({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'gardener-osc-controller-manager', namespace: l.fixture.namespace },
      } as never);
      expect((lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity).not.to.equal('standby');
    } finally {
      await agent.close();
      standby.stop();
      await standby.stopped;
    }
  });

  describe('the agent with its identity', () => {
    let agent: RunningAgent | undefined;
    let stopping = false;
    /** Runs the agent as its unit does: started again whenever it exits to restart itself. */
    const supervise = async (start: () => Promise<RunningAgent>) => {
      agent = await start();
      void agent.stopped.then((reason) => {
        if (reason === 'restart' && !stopping) void supervise(start);
      });
    };
    const node = `identity-agent-${suffix}`;
    const root = () => join(dir, 'agent');

    after(async () => {
      stopping = true;
      agent?.stop();
      await agent?.stopped;
    });

    it('bootstraps before its Node exists, then stamps its Node and renews its Lease', async () => {
      mkdirSync(join(root(), PATH.nodeAgentCredentialsDir), { recursive: true });
      writeFileSync(join(root(), PATH.nodeAgentBootstrapToken), await createBootstrapToken(l.shoot));
      // the images the pool's OSC copies files from (a fake per image, as the demo's)
      const secret = await core.readNamespacedSecret({
        name: l.oscSecrets.get('gpu-worker')!,
        namespace: 'kube-system',
      });
      const { osc } = readOscSecret(secret as Parameters<typeof readOscSecret>[0]);
      const images: Record<string, Record<string, string>> = {};
      for (const f of [...(osc.spec.files ?? []), ...(osc.status?.extensionFiles ?? [])]) {
        const ref = f.content.imageRef;
        if (ref) images[ref.image] = { ...images[ref.image], [ref.filePathInImage]: `fake ${ref.image}` };
      }
      const imagesDir = writeImages(join(dir, 'images'), images);
      const log = process.env.TEST_LOG ? createLogger({ level: 'debug', format: 'text' }) : silentLogger;
      await supervise(() =>
        runAgent({
          config: agentConfig(l, 'gpu-worker'),
          root: root(),
          systemd: new MemorySystemd(),
          images: new DirectoryImageExtractor(imagesDir),
          log,
          env: {},
          nodeName: node,
          healthPort: 0,
          metricsPort: 0,
        }),
      );
      // its pool's configuration is applied before the kubelet registers the Node
      await eventually(
        'the applied OSC',
        () => readFileSync(join(root(), PATH.lastAppliedOsc), 'utf8').length > 0,
        120_000,
      );
      await createNode(node, 'gpu-worker');
      const stamped = await eventually(
        'the checksum on the Node',
        async () =>
          (await core.readNode({ name: node })).metadata?.annotations?.[ANNOTATION.checksumCloudConfigData],
        60_000,
      );
      expect(stamped).to.match(/^[0-9a-f]{64}$/);
      const coordination = await import('@kubernetes/client-node').then((m) =>
        l.shoot.kubeConfig.makeApiClient(m.CoordinationV1Api),
      );
      await eventually(
        'the Lease',
        () =>
          coordination.readNamespacedLease({ name: `gardener-node-agent-${node}`, namespace: 'kube-system' }),
        30_000,
      );
    });

    it('renews its certificate before it expires, without a restart', async () => {
      const file = join(root(), PATH.nodeAgentKubeconfig);
      const before = readFileSync(file, 'utf8');
      const validity = certificateValidity(
        (await KubeconfigFileAccess.load(file)).restConfig.options.clientCertificate!,
      );
      const http = new KubeHttp(await KubeconfigFileAccess.load(file));
      const abort = new AbortController();
      try {
        // a clock at 85 % of the certificate's lifetime: past every renewal deadline
        const offset = (validity.notAfter - validity.notBefore) * 0.89 - (Date.now() - validity.notBefore);
        addCertificateController(
          {
            file,
            nodeName: node,
            client: new KubeClient(http),
            clock: { now: () => Date.now() + offset, setTimer: realClock.setTimer },
            pollIntervalMs: 200,
          },
          abort.signal,
        );
        await eventually('a renewed kubeconfig', () => readFileSync(file, 'utf8') !== before, 60_000);
        expect(await whoAmI(http)).to.deep.include({ username: `gardener.cloud:node-agent:machine:${node}` });
      } finally {
        abort.abort();
        await http.close();
      }
      // the running agent goes on with the new certificate: its Node stays stamped, its Lease renewed
      const renewTime = async () =>
        (
          await import('@kubernetes/client-node').then((m) =>
            l.shoot.kubeConfig
              .makeApiClient(m.CoordinationV1Api)
              .readNamespacedLease({ name: `gardener-node-agent-${node}`, namespace: 'kube-system' }),
          )
        ).spec?.renewTime;
      const first = await renewTime();
      await eventually(
        'a renewal with the new certificate',
        async () => (await renewTime()) !== first,
        30_000,
      );
    });
  });
});
