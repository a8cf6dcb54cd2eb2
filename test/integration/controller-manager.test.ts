/**
 * `gardener-osc controller-manager` on a seed and a shoot API server, running with its own seed
 * ServiceAccount (the chart's ClusterRole) and a shoot identity bound to the documented minimum
 * role, with os-local acting as the OS extension.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
  type V1Secret,
} from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  ANNOTATION,
  DATA_KEY,
  decodeCluster,
  instantFromDate,
  LABEL,
  type OperatingSystemConfig,
  sha256Hex,
  stringifyYaml,
} from '../../api/index.js';
import { renderNodeConfiguration } from '../../charts/node-configuration.js';
import { CLUSTER_FINALIZER } from '../../controllers/operatingsystemconfig/decide.js';
import {
  createShootFixture,
  SELECTOR_LABEL,
  type ShootFixture,
} from '../../hack/landscape/controller-manager-fixture.js';
import {
  type Envtest,
  readAuditEvents,
  requireClusterScopedWrites,
  startEnvtest,
} from '../../hack/landscape/envtest.js';
import { eventually, eventuallyPasses } from '../../hack/landscape/eventually.js';
import { EXAMPLE_CLUSTER_V150_FILE, exampleCluster } from '../../hack/landscape/example-cluster.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { seedRenderValues } from '../../seed/manager/seed-render-values.js';

const ROOT = resolve(import.meta.dirname, '../..');

const OSC = { apiVersion: 'extensions.gardener.cloud/v1alpha1', kind: 'OperatingSystemConfig' };

async function listOscs(f: ShootFixture): Promise<OperatingSystemConfig[]> {
  const list = await f.seedObjects.list(OSC.apiVersion, OSC.kind, f.namespace);
  return list.items as unknown as OperatingSystemConfig[];
}

/** An admin client of the seed (one per API server, kept for the run). */
const seedClients = new Map<Envtest, KubeClient>();
const seedClient = (seed: Envtest) => {
  let client = seedClients.get(seed);
  if (!client) {
    client = new KubeClient(new KubeHttp(seed.kubeConfig));
    seedClients.set(seed, client);
  }
  return client;
};

/** Gives a fixture's Cluster the selector label of another, so one controller-manager selects both. */
async function selectAlongside(f: ShootFixture, selector: string): Promise<void> {
  await f.seedObjects.patch(
    {
      apiVersion: 'extensions.gardener.cloud/v1alpha1',
      kind: 'Cluster',
      metadata: { name: f.namespace, labels: { [SELECTOR_LABEL]: selector } },
    } as KubernetesObject,
    undefined,
    undefined,
    'test',
    undefined,
    PatchStrategy.MergePatch,
  );
}

async function expectedNames(seed: Envtest, f: ShootFixture, gate = true) {
  const decoded = decodeCluster(await f.cluster());
  if (!decoded.ok) throw new Error(`bad cluster: ${JSON.stringify(decoded.errors)}`);
  const config = f.config();
  const { values } = await seedRenderValues(seedClient(seed), f.namespace, decoded.value, config);
  return {
    cluster: decoded.value,
    values,
    config,
    rendered: renderNodeConfiguration({
      cluster: decoded.value,
      values,
      useGardenerNodeAgent: gate,
      legacyNodes: !gate,
      now: instantFromDate(new Date()),
    }),
  };
}

const oscNames = (objects: readonly { kind: string; metadata: { name?: string } }[]) =>
  objects
    .filter((o) => o.kind === 'OperatingSystemConfig')
    .map((o) => o.metadata.name ?? '')
    .sort();

describe('controller-manager against seed and shoot API servers', function () {
  this.timeout(180_000);
  let seed: Envtest;
  let shoot: Envtest;

  before(async function () {
    this.timeout(20 * 60_000);
    [seed, shoot] = await Promise.all([startEnvtest({ name: 'seed' }), startEnvtest({ name: 'shoot' })]);
    requireClusterScopedWrites(seed);
    requireClusterScopedWrites(shoot);
  });

  describe('with ManagedResources', () => {
    let f: ShootFixture;
    before(async () => {
      f = await createShootFixture(seed, shoot, 'managedResource');
    });
    after(async () => f?.cleanUp());

    it('deploys the OSC pairs, waits for the OS extension, writes exactly the rendered ManagedResource secrets', async () => {
      const { rendered } = await expectedNames(seed, f);
      await f.start(f.config());
      await eventuallyPasses(async () => {
        const oscs = await listOscs(f);
        expect(oscs.map((o) => o.metadata.name).sort()).to.deep.equal(oscNames(rendered.seed));
        for (const osc of oscs)
          expect(osc.status?.lastOperation?.state, osc.metadata.name).to.equal('Succeeded');
      }, 60_000);
      const core = seed.kubeConfig.makeApiClient(CoreV1Api);
      const mrSecrets = async () =>
        (
          await core.listNamespacedSecret({
            namespace: f.namespace,
            labelSelector: `${LABEL.managedResource}=shoot-gardener-node-agent`,
          })
        ).items;
      await eventuallyPasses(async () => expect(await mrSecrets()).to.have.length(4), 30_000);

      // exactly what the renderer gives for the OSCs as the extension left them
      const live = new Map((await listOscs(f)).map((o) => [o.metadata.name ?? '', o]));
      const decoded = decodeCluster(await f.cluster());
      if (!decoded.ok) throw new Error(`bad cluster: ${JSON.stringify(decoded.errors)}`);
      const { values } = await seedRenderValues(seedClient(seed), f.namespace, decoded.value, f.config());
      const expected = renderNodeConfiguration({
        cluster: decoded.value,
        values,
        useGardenerNodeAgent: true,
        legacyNodes: false,
        now: instantFromDate(new Date()),
        reconciledOscs: live,
      });
      const expectedSecrets = expected.seed
        .filter((o) => o.kind === 'Secret' && o.metadata.name?.startsWith('managedresource-'))
        .map((o) => o.metadata.name)
        .sort();
      expect((await mrSecrets()).map((s) => s.metadata?.name).sort()).to.deep.equal(expectedSecrets);
      const mr = (await f.seedObjects.read({
        apiVersion: 'resources.gardener.cloud/v1alpha1',
        kind: 'ManagedResource',
        metadata: { name: 'shoot-gardener-node-agent', namespace: f.namespace },
      } as never)) as KubernetesObject & { spec: { secretRefs: { name: string }[] } };
      expect(mr.spec.secretRefs.map((r) => r.name).sort()).to.deep.equal(expectedSecrets);
      // with per-node identities the agents need no shared token: no access secret asks for one
      const access = await core
        .readNamespacedSecret({ name: 'shoot-access-gardener-node-agent', namespace: f.namespace })
        .catch((e: unknown) => e);
      expect(access).to.be.instanceOf(ApiException).and.to.have.property('code', 404);
      const cluster = await f.cluster();
      expect(cluster.metadata?.finalizers).to.include(CLUSTER_FINALIZER);
    });

    it('renames the key on a Kubernetes version bump, removes the stale OSCs and ManagedResource secret', async () => {
      const before = (await listOscs(f)).map((o) => o.metadata.name ?? '');
      await f.patchShoot((s) => {
        s.spec.kubernetes.version = '1.31.1';
      });
      const { rendered } = await expectedNames(seed, f);
      const wanted = oscNames(rendered.seed);
      expect(wanted).to.not.deep.equal([...before].sort());
      await eventuallyPasses(async () => {
        expect((await listOscs(f)).map((o) => o.metadata.name).sort()).to.deep.equal(wanted);
      }, 60_000);
      const core = seed.kubeConfig.makeApiClient(CoreV1Api);
      await eventuallyPasses(async () => {
        const mr = (await f.seedObjects.read({
          apiVersion: 'resources.gardener.cloud/v1alpha1',
          kind: 'ManagedResource',
          metadata: { name: 'shoot-gardener-node-agent', namespace: f.namespace },
        } as never)) as KubernetesObject & { spec: { secretRefs: { name: string }[] } };
        const secrets = (
          await core.listNamespacedSecret({
            namespace: f.namespace,
            labelSelector: `${LABEL.managedResource}=shoot-gardener-node-agent`,
          })
        ).items;
        expect(secrets.map((s) => s.metadata?.name).sort()).to.deep.equal(
          mr.spec.secretRefs.map((r) => r.name).sort(),
        );
      }, 30_000);
    });

    it('removes what it created when the Cluster is deleted', async () => {
      const cluster = await f.cluster();
      await f.seedObjects.delete(cluster);
      await eventuallyPasses(async () => {
        expect(await listOscs(f)).to.deep.equal([]);
        const exists = await f.cluster().then(
          () => true,
          () => false,
        );
        expect(exists, 'the Cluster is released by our finalizer').to.equal(false);
      }, 60_000);
      const core = seed.kubeConfig.makeApiClient(CoreV1Api);
      const left = (await core.listNamespacedSecret({ namespace: f.namespace })).items
        .map((s) => s.metadata?.name ?? '')
        .filter(
          (n) =>
            n.startsWith('managedresource-') || n.startsWith('shoot-access-') || n.startsWith('osc-result-'),
        );
      expect(left).to.deep.equal([]);
      const mrs = await f.seedObjects.list(
        'resources.gardener.cloud/v1alpha1',
        'ManagedResource',
        f.namespace,
      );
      expect(mrs.items).to.deep.equal([]);
    });
  });

  describe('with a v1.150.0 Cluster (examples/cluster-v1.150.yaml)', () => {
    let f: ShootFixture;
    before(async () => {
      f = await createShootFixture(
        seed,
        shoot,
        'managedResource',
        undefined,
        exampleCluster(EXAMPLE_CLUSTER_V150_FILE),
      );
    });
    after(async () => f?.cleanUp());

    it('renders the v1.150.0 contract: its OSC names, its ManagedResource secrets, its stripped osc.yaml', async () => {
      const decoded = decodeCluster(await f.cluster());
      if (!decoded.ok) throw new Error(`bad cluster: ${JSON.stringify(decoded.errors)}`);
      const { values } = await seedRenderValues(seedClient(seed), f.namespace, decoded.value, f.config());
      const input = {
        cluster: decoded.value,
        values,
        gardenerVersion: 'v1.150.0' as const,
        useGardenerNodeAgent: true,
        legacyNodes: false,
        now: instantFromDate(new Date()),
      };
      const wanted = oscNames(renderNodeConfiguration(input).seed);
      for (const name of wanted)
        expect(name).to.match(/^gardener-node-agent-[a-z-]+-[0-9a-f]{16}-(init|original)$/);
      await f.start(f.config());
      await eventuallyPasses(async () => {
        const oscs = await listOscs(f);
        expect(oscs.map((o) => o.metadata.name).sort()).to.deep.equal(wanted);
        for (const osc of oscs)
          expect(osc.status?.lastOperation?.state, osc.metadata.name).to.equal('Succeeded');
      }, 60_000);
      // the API server kept what only v1.150.0 writes (the CRD knows both contracts)
      const reconcile = (await listOscs(f)).find(
        (o) =>
          o.metadata.name?.startsWith('gardener-node-agent-cpu-worker-') && o.spec.purpose === 'reconcile',
      );
      expect(reconcile?.spec.criConfig).to.deep.include({ name: 'containerd', cgroupDriver: 'systemd' });
      expect(reconcile?.spec.criConfig?.containerd?.sandboxImage).to.equal('registry.k8s.io/pause:3.10');

      const core = seed.kubeConfig.makeApiClient(CoreV1Api);
      const live = new Map((await listOscs(f)).map((o) => [o.metadata.name ?? '', o]));
      const expected = renderNodeConfiguration({ ...input, reconciledOscs: live });
      const expectedSecrets = expected.seed.filter(
        (o) => o.kind === 'Secret' && o.metadata.name?.startsWith('managedresource-'),
      );
      const mrSecrets = async () =>
        (
          await core.listNamespacedSecret({
            namespace: f.namespace,
            labelSelector: `${LABEL.managedResource}=shoot-gardener-node-agent`,
          })
        ).items;
      await eventuallyPasses(
        async () =>
          expect((await mrSecrets()).map((s) => s.metadata?.name).sort()).to.deep.equal(
            expectedSecrets.map((o) => o.metadata.name).sort(),
          ),
        30_000,
      );
      // byte for byte: the compressed registry data of every ManagedResource secret
      for (const secret of await mrSecrets()) {
        const want = expectedSecrets.find(
          (o) => o.metadata.name === secret.metadata?.name,
        ) as unknown as V1Secret;
        expect(secret.data, secret.metadata?.name).to.deep.equal(want.data);
      }
      // no ServiceAccount token for the agent, no downloader: v1.150.0 agents join with the bootstrap token
      for (const name of ['shoot-access-gardener-node-agent', 'shoot-access-cloud-config-downloader']) {
        const access = await core
          .readNamespacedSecret({ name, namespace: f.namespace })
          .catch((e: unknown) => e);
        expect(access, name).to.be.instanceOf(ApiException).and.to.have.property('code', 404);
      }
    });
  });

  describe('with a Cluster whose writes fail', () => {
    let healthy: ShootFixture;
    let refused: ShootFixture;
    const policy = `deny-secret-writes-${Date.now().toString(36)}`;
    const admission = () => KubernetesObjectApi.makeApiClient(seed.kubeConfig);
    const vap = () => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: [''],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['secrets'],
            },
          ],
        },
        validations: [{ expression: 'false', message: 'secrets in this namespace are read-only (test)' }],
      },
    });
    const binding = () => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: policy },
      spec: {
        policyName: policy,
        validationActions: ['Deny'],
        matchResources: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': refused.namespace } },
        },
      },
    });
    before(async () => {
      healthy = await createShootFixture(seed, shoot, 'managedResource');
      refused = await createShootFixture(seed, shoot, 'managedResource');
      // one controller-manager selects both Clusters
      await selectAlongside(refused, healthy.selector);
      await admission().create(vap() as KubernetesObject);
      await admission().create(binding() as KubernetesObject);
    });
    after(async () => {
      await admission()
        .delete(binding() as KubernetesObject)
        .catch(() => undefined);
      await admission()
        .delete(vap() as KubernetesObject)
        .catch(() => undefined);
      await refused?.cleanUp();
      await healthy?.cleanUp();
    });

    it('reports why in a Warning event on that Cluster and reconciles the others meanwhile', async () => {
      const core = seed.kubeConfig.makeApiClient(CoreV1Api);
      // the admission policy takes effect within a second or two
      await eventuallyPasses(async () => {
        const denied = await core
          .createNamespacedSecret({ namespace: refused.namespace, body: { metadata: { name: 'probe' } } })
          .then(
            () => false,
            () => true,
          );
        await core
          .deleteNamespacedSecret({ namespace: refused.namespace, name: 'probe' })
          .catch(() => undefined);
        expect(denied, 'the policy denies secret writes').to.equal(true);
      }, 30_000);
      // one worker: a Cluster that keeps failing must not hold it; the v1.91 identity mode, whose
      // shared token's access secret is the first Secret a reconcile writes (with per-node
      // identities the OSCs come first, and then the OS extension's writes fail)
      await healthy.start(
        healthy.config({
          controllers: {
            ...(healthy.rawConfig().controllers as Record<string, unknown>),
            operatingSystemConfig: { concurrentSyncs: 1 },
          },
          nodeAgent: { identity: 'serviceAccount' },
        }),
      );
      const { rendered } = await expectedNames(seed, healthy);
      await eventuallyPasses(async () => {
        const oscs = await listOscs(healthy);
        expect(oscs.map((o) => o.metadata.name).sort()).to.deep.equal(oscNames(rendered.seed));
        await healthy.seedObjects.read({
          apiVersion: 'resources.gardener.cloud/v1alpha1',
          kind: 'ManagedResource',
          metadata: { name: 'shoot-gardener-node-agent', namespace: healthy.namespace },
        } as never);
      }, 60_000);
      const event = await eventually(
        'a Warning event on the refused Cluster',
        async () =>
          (
            await core.listNamespacedEvent({
              namespace: 'default',
              fieldSelector: `involvedObject.name=${refused.namespace}`,
            })
          ).items.find((e) => e.reason === 'WriteFailed'),
        60_000,
      );
      expect(event.type).to.equal('Warning');
      expect(event.involvedObject.kind).to.equal('Cluster');
      expect(event.message).to.contain(
        `writing Secret ${refused.namespace}/shoot-access-gardener-node-agent`,
      );
      expect(event.message).to.contain('secrets in this namespace are read-only (test)');
      expect(await listOscs(refused), 'nothing past the failed write').to.deep.equal([]);
    });
  });

  describe('as a process', () => {
    let f: ShootFixture;
    let dir: string;
    before(async () => {
      f = await createShootFixture(seed, shoot, 'managedResource');
      dir = mkdtempSync(join(tmpdir(), 'osc-cm-process-'));
    });
    after(async () => {
      await f?.cleanUp();
      rmSync(dir, { recursive: true, force: true });
    });

    it('serves its probes, reconciles with its own identity, and exits 0 on SIGTERM', async () => {
      const kubeconfig = join(dir, 'seed.kubeconfig');
      writeFileSync(kubeconfig, f.seedIdentity.exportConfig());
      const configFile = join(dir, 'config.yaml');
      writeFileSync(
        configFile,
        // v1.91 identities: the authorizer needs a serving certificate (covered by the identity suites)
        stringifyYaml({
          ...f.rawConfig({ nodeAgent: { identity: 'serviceAccount' } }),
          seedKubeconfig: kubeconfig,
          logFormat: 'json',
        }),
      );
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          join(ROOT, 'cli/main.ts'),
          'controller-manager',
          '--config',
          configFile,
          '--health-port',
          '0',
          '--metrics-port',
          '0',
        ],
        { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      try {
        const health = await eventually(
          'the health endpoint',
          () => /health":"(http:[^"]+)"/.exec(stderr)?.[1],
          60_000,
        );
        await eventuallyPasses(async () => {
          expect((await fetch(`${health}/readyz`)).status).to.equal(200);
          expect((await listOscs(f)).length).to.equal(6);
        }, 60_000);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited, stderr.slice(-2000)).to.equal(0);
      expect(stderr).to.include('Stopped');
    });
  });

  describe('in direct mode', () => {
    let f: ShootFixture;
    const nodes: string[] = [];
    before(async () => {
      f = await createShootFixture(seed, shoot, 'direct');
    });
    after(async () => {
      const core = shoot.kubeConfig.makeApiClient(CoreV1Api);
      const leases = shoot.kubeConfig.makeApiClient(CoordinationV1Api);
      for (const n of nodes) {
        await core.deleteNode({ name: n }).catch(() => undefined);
        await leases
          .deleteNamespacedLease({ name: `gardener-node-agent-${n}`, namespace: 'kube-system' })
          .catch(() => undefined);
      }
      await f?.cleanUp();
    });

    it('migrates from the legacy downloader once every node reported, and never redoes the cleanup', async () => {
      const shootCore = shoot.kubeConfig.makeApiClient(CoreV1Api);
      const seedCore = seed.kubeConfig.makeApiClient(CoreV1Api);
      // gate off: the legacy downloader path, applied straight into the shoot
      const legacy = await f.start(
        f.config({
          featureGates: { UseGardenerNodeAgent: false },
          nodeAgent: { identity: 'serviceAccount' },
        }),
      );
      const legacyKeys = oscNames((await expectedNames(seed, f, false)).rendered.seed);
      await eventuallyPasses(async () => {
        expect((await listOscs(f)).map((o) => o.metadata.name).sort()).to.deep.equal(legacyKeys);
        const secrets = (
          await shootCore.listNamespacedSecret({
            namespace: 'kube-system',
            labelSelector: `${LABEL.gardenerRole}=cloud-config`,
          })
        ).items;
        expect(secrets, 'executor secrets per pool').to.have.length(3);
        const token = await shootCore.readNamespacedSecret({
          name: 'cloud-config-downloader',
          namespace: 'kube-system',
        });
        expect(token.data?.token, 'the token-requestor filled the downloader token').to.be.a('string');
      }, 90_000);
      legacy.stop();
      await legacy.stopped;

      // one legacy node per pool, there before the gate goes on (as on a real shoot): a pool
      // without nodes would have nothing to wait for
      const decodedCluster = decodeCluster(await f.cluster());
      if (!decodedCluster.ok) throw new Error(JSON.stringify(decodedCluster.errors));
      const { shoot: shootSpec } = decodedCluster.value;
      for (const worker of shootSpec.spec.provider.workers) {
        const name = `it-${f.selector}-${worker.name}`;
        nodes.push(name);
        await shootCore.createNode({
          body: {
            metadata: {
              name,
              labels: {
                [LABEL.workerPool]: worker.name,
                [LABEL.kubernetesVersion]: worker.kubernetes?.version ?? shootSpec.spec.kubernetes.version,
                ...(worker.name === 'gpu-worker' ? {} : { [LABEL.criName]: 'containerd' }),
              },
            },
          },
        });
      }

      // gate on: both sets until every node reports the agent
      await f.start(f.config({ nodeAgent: { identity: 'serviceAccount' } }));
      let poolSecrets: V1Secret[] = [];
      await eventuallyPasses(async () => {
        poolSecrets = (
          await shootCore.listNamespacedSecret({
            namespace: 'kube-system',
            labelSelector: `${LABEL.gardenerRole}=operating-system-config`,
          })
        ).items.filter(
          (s) => s.metadata?.labels?.['set.node-configuration.gardener.cloud/shoot-gardener-node-agent'],
        );
        expect(poolSecrets).to.have.length(3);
        const legacySecrets = (
          await shootCore.listNamespacedSecret({
            namespace: 'kube-system',
            labelSelector: `${LABEL.gardenerRole}=cloud-config`,
          })
        ).items;
        expect(legacySecrets, 'legacy nodes still get node-init through the executor').to.have.length(3);
        const token = await shootCore.readNamespacedSecret({
          name: 'gardener-node-agent',
          namespace: 'kube-system',
        });
        expect(token.metadata?.labels?.[LABEL.gardenerRole], 'token-labels').to.equal('access-token');
      }, 90_000);
      const state = async () =>
        (
          await seedCore.readNamespacedConfigMap({
            name: 'gardener-node-agent-migration',
            namespace: f.namespace,
          })
        ).data?.phase;
      expect(await state()).to.equal('Migrating');

      // one node per pool reports the agent (fresh Lease, its pool's checksum)
      const leases = shoot.kubeConfig.makeApiClient(CoordinationV1Api);
      for (const secret of poolSecrets) {
        const pool = secret.metadata?.labels?.[LABEL.workerPool] ?? '';
        const name = `it-${f.selector}-${pool}`;
        const osc = Buffer.from(secret.data?.[DATA_KEY.osc] ?? '', 'base64').toString('utf8');
        expect(secret.metadata?.annotations?.[ANNOTATION.checksumDataScript]).to.equal(sha256Hex(osc));
        await eventuallyPasses(async () => {
          const node = await shootCore.readNode({ name });
          expect(node.metadata?.annotations?.[ANNOTATION.reconciliationDelay], 'node-delay').to.match(/s$/);
        }, 30_000);
        expect(await state(), 'a node not reporting blocks the migration').to.equal('Migrating');
        await shootCore.patchNode(
          {
            name,
            body: {
              metadata: {
                annotations: {
                  [ANNOTATION.checksumCloudConfigData]:
                    secret.metadata?.annotations?.[ANNOTATION.checksumDataScript],
                },
              },
            },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
        await leases.createNamespacedLease({
          namespace: 'kube-system',
          body: {
            metadata: { name: `gardener-node-agent-${name}` },
            spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: new V1MicroTime() },
          },
        });
      }
      await eventuallyPasses(async () => expect(await state()).to.equal('Completed'), 60_000);
      const gone = async (read: () => Promise<unknown>) =>
        read().then(
          () => false,
          () => true,
        );
      expect(
        await gone(() =>
          seedCore.readNamespacedSecret({
            name: 'shoot-access-cloud-config-downloader',
            namespace: f.namespace,
          }),
        ),
      ).to.equal(true);
      expect(
        await gone(() =>
          shootCore.readNamespacedSecret({ name: 'cloud-config-downloader', namespace: 'kube-system' }),
        ),
      ).to.equal(true);
      await eventuallyPasses(async () => {
        const legacySecrets = (
          await shootCore.listNamespacedSecret({
            namespace: 'kube-system',
            labelSelector: `${LABEL.gardenerRole}=cloud-config`,
          })
        ).items;
        expect(legacySecrets).to.deep.equal([]);
      }, 10_000);
      // the bootstrap ClusterRoleBindings survive the legacy set's deletion (the agent's set holds them)
      const crbs = await f.shootObjects.list('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding');
      expect(crbs.items.map((c) => c.metadata?.name)).to.include('system:node-bootstrapper');

      // a restarted controller-manager neither recreates nor deletes the legacy resources again
      const countDeletes = () =>
        readAuditEvents(seed).filter(
          (e) =>
            e.verb === 'delete' &&
            e.stage === 'ResponseComplete' &&
            e.requestURI.includes(`/namespaces/${f.namespace}/secrets/shoot-access-cloud-config-downloader`),
        ).length;
      const deletesBefore = countDeletes();
      expect(deletesBefore).to.equal(1);
      const restarted = await f.start(f.config({ nodeAgent: { identity: 'serviceAccount' } }));
      await eventuallyPasses(async () => {
        const text = await (await fetch(`${restarted.metrics.url}/metrics`)).text();
        expect(text).to.match(
          /gardener_osc_operatingsystemconfig_writes_total|controller_runtime_reconcile_total\{controller="operatingsystemconfig",result="requeue_after"\} [1-9]/,
        );
      }, 30_000);
      await new Promise((r) => setTimeout(r, 3_000));
      expect(
        await gone(() =>
          seedCore.readNamespacedSecret({
            name: 'shoot-access-cloud-config-downloader',
            namespace: f.namespace,
          }),
        ),
      ).to.equal(true);
      const legacyAfter = (
        await shootCore.listNamespacedSecret({
          namespace: 'kube-system',
          labelSelector: `${LABEL.gardenerRole}=cloud-config`,
        })
      ).items;
      expect(legacyAfter).to.deep.equal([]);
      expect(countDeletes()).to.equal(deletesBefore);
      expect(await state()).to.equal('Completed');
    });
  });
});
