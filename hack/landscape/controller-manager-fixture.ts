/**
 * A selected shoot for controller-manager tests on the seed and shoot envtests: its namespace and
 * Cluster (examples/cluster.yaml), the secrets-manager secrets gardenlet would have created, the
 * `gardener-internal` kubeconfig of a shoot ServiceAccount bound to the documented minimum shoot
 * role, and the controller-manager's own seed ServiceAccount bound to the seed ClusterRole of its
 * chart. Tests run the controller-manager with that identity, never as admin.
 */
import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import {
  CONTROLLER_MANAGER_NAME,
  shootClusterRole,
} from '../../charts/controller-manager/controller-manager.js';
import { runControllerManager } from '../../controllers/index.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { createLogger, silentLogger } from '../../runtime/logging.js';
import {
  type ControllerManagerConfiguration,
  decodeControllerManagerConfiguration,
} from '../../seed/manager/config.js';
import type { RunningManager } from '../../seed/manager/run-manager.js';
import { type ClusterObject, patchClusterShoot, readCluster as readClusterObject } from './cluster-object.js';
import {
  controllerManagerSeedIdentity,
  controllerManagerShootIdentity,
} from './controller-manager-identities.js';
import { createObject } from './create-object.js';
import type { Envtest } from './envtest.js';
import { exampleCluster } from './example-cluster.js';
import { fakePem, writeShootNamespaceSecrets } from './shoot-namespace-secrets.js';

export const SELECTOR_LABEL = 'node-configuration.gardener.cloud/controller-manager';

export interface ShootFixture {
  readonly namespace: string;
  readonly selector: string;
  readonly seedIdentity: KubeConfig;
  readonly seedObjects: KubernetesObjectApi;
  readonly shootObjects: KubernetesObjectApi;
  cluster(): Promise<ClusterObject>;
  /** Applies a change to the Cluster's embedded shoot (merge patch of the whole spec). */
  patchShoot(mutate: (shoot: ClusterObject['spec']['shoot']) => void): Promise<void>;
  config(overrides?: Record<string, unknown>): ControllerManagerConfiguration;
  /** The configuration file's content (before defaulting). */
  rawConfig(overrides?: Record<string, unknown>): Record<string, unknown>;
  start(config: ControllerManagerConfiguration): Promise<RunningManager>;
  cleanUp(): Promise<void>;
}

export async function createShootFixture(
  seed: Envtest,
  shoot: Envtest,
  applyMode: 'managedResource' | 'direct',
  /** Names the shoot `shoot--it--<id>` (default: random), e.g. when the shoot's API server must know it first. */
  fixedId?: string,
  /** The Cluster (its metadata's annotations are kept; default examples/cluster.yaml). */
  cluster: ClusterObject = exampleCluster(),
): Promise<ShootFixture> {
  const id = fixedId ?? randomBytes(3).toString('hex');
  const namespace = `shoot--it--${id}`;
  const selector = `it-${id}`;
  const seedAdmin = KubernetesObjectApi.makeApiClient(seed.kubeConfig);
  const shootAdmin = KubernetesObjectApi.makeApiClient(shoot.kubeConfig);
  const seedCore = seed.kubeConfig.makeApiClient(CoreV1Api);
  await seedCore.createNamespace({ body: { metadata: { name: namespace } } });
  // the landscape's own clients, open until cleanUp removes what they created
  const seedHttp = new KubeHttp(seed.kubeConfig);
  const shootHttp = new KubeHttp(shoot.kubeConfig);
  const seedClient = new KubeClient(seedHttp);
  const shootClient = new KubeClient(shootHttp);

  const seedIdentity = await controllerManagerSeedIdentity(seed, seedClient, {
    namespace,
    roleName: `${CONTROLLER_MANAGER_NAME}-${id}`,
    expirationSeconds: 3600,
  });
  const shootIdentity = await controllerManagerShootIdentity(shoot, shootClient, {
    applyMode,
    serviceAccount: `gardener-osc-it-${id}`,
    roleName: `${shootClusterRole(applyMode).metadata.name}-${id}`,
    expirationSeconds: 3600,
  });
  const created = [...seedIdentity.created, ...shootIdentity.created];
  await writeShootNamespaceSecrets(seedClient, namespace, {
    suffix: '1',
    shootKubeconfig: shootIdentity.kubeConfig.exportConfig(),
    clusterCaPem: fakePem(`cluster CA ${id}`),
    kubeletCaPem: fakePem(`kubelet CA ${id}`),
    sshPublicKey: `ssh-rsa AAAA${id} current`,
  });
  await createObject(seedClient, RESOURCE.cluster, {
    ...cluster,
    metadata: {
      name: namespace,
      labels: { [SELECTOR_LABEL]: selector },
      ...(cluster.metadata?.annotations ? { annotations: cluster.metadata.annotations } : {}),
    },
  });
  const readCluster = () => readClusterObject(seedAdmin, namespace);
  const managers: RunningManager[] = [];
  const stoppedManagers = new Set<RunningManager>();
  const rawConfig = (overrides: Record<string, unknown> = {}): Record<string, unknown> => {
    return {
      apiVersion: 'node-configuration.gardener.cloud/v1alpha1',
      kind: 'ControllerManagerConfiguration',
      clusterSelector: { matchLabels: { [SELECTOR_LABEL]: selector } },
      applyMode,
      leaderElection: {
        namespace,
        name: 'gardener-osc-controller-manager',
        leaseDuration: '4s',
        renewDeadline: '3s',
        retryPeriod: '500ms',
      },
      server: { healthProbes: { port: 0 }, metrics: { port: 0 } },
      controllers: {
        osLocal: { enabled: true, types: ['gardenlinux', 'ubuntu'] },
        migration: { checkInterval: '1s' },
      },
      ...overrides,
    };
  };

  return {
    namespace,
    selector,
    seedIdentity: seedIdentity.kubeConfig,
    seedObjects: seedAdmin,
    shootObjects: shootAdmin,
    cluster: readCluster,
    patchShoot: (mutate) => patchClusterShoot(seedAdmin, namespace, mutate, 'test'),
    config(overrides = {}) {
      const decoded = decodeControllerManagerConfiguration(rawConfig(overrides));
      if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
      return decoded.value;
    },
    rawConfig,
    async start(config) {
      const log = process.env.TEST_LOG ? createLogger({ level: 'debug', format: 'text' }) : silentLogger;
      const manager = await runControllerManager({ config, seed: seedIdentity.kubeConfig, log });
      managers.push(manager);
      void manager.stopped.then(() => stoppedManagers.add(manager));
      return manager;
    },
    async cleanUp() {
      // a running controller-manager removes what it put into the shared shoot (and the seed) when
      // its Cluster is deleted; only then is it stopped, so no later suite finds our objects
      const running = managers.filter((m) => !stoppedManagers.has(m));
      const live = await readCluster().catch(() => undefined);
      if (running.length > 0 && live) {
        await seedAdmin.delete(live).catch(() => undefined);
        const deadline = Date.now() + 60_000;
        while (
          Date.now() < deadline &&
          (await readCluster().then(
            () => true,
            () => false,
          ))
        )
          await new Promise((r) => setTimeout(r, 250));
      }
      for (const m of managers) {
        m.stop();
        const stopped = await Promise.race([
          m.stopped.then(() => true),
          new Promise((r) => setTimeout(() => r(false), 20_000)),
        ]);
        if (!stopped) throw new Error('the controller-manager did not stop within 20 s of being asked to');
      }
      const cluster = await readCluster().catch(() => undefined);
      if (cluster) {
        await seedAdmin
          .patch(
            {
              apiVersion: cluster.apiVersion,
              kind: cluster.kind,
              metadata: { name: namespace, finalizers: null },
            } as never,
            undefined,
            undefined,
            'test',
            undefined,
            PatchStrategy.MergePatch,
          )
          .catch(() => undefined);
        await seedAdmin.delete(cluster).catch(() => undefined);
      }
      for (const { client, resource, ...ref } of created.reverse())
        await client.delete(resource, ref).catch(() => undefined);
      await seedCore.deleteNamespace({ name: namespace }).catch(() => undefined);
      await Promise.all([seedHttp.close(), shootHttp.close()]);
    },
  };
}
