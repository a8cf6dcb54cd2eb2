/**
 * A selected shoot for controller-manager tests on the seed and shoot envtests: its namespace and
 * Cluster (examples/cluster.yaml), the secrets-manager secrets gardenlet would have created, the
 * `gardener-internal` kubeconfig of a shoot ServiceAccount bound to the documented minimum shoot
 * role, and the controller-manager's own seed ServiceAccount bound to the seed ClusterRole of its
 * chart. Tests run the controller-manager with that identity, never as admin.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CoreV1Api,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
} from '@kubernetes/client-node';
import { parseYaml } from '../../api/index.js';
import {
  CONTROLLER_MANAGER_NAME,
  clusterRoleBinding,
  seedClusterRole,
  shootClusterRole,
} from '../../charts/controller-manager/controller-manager.js';
import { runControllerManager } from '../../controllers/index.js';
import { createLogger, silentLogger } from '../../runtime/logging.js';
import {
  type ControllerManagerConfiguration,
  decodeControllerManagerConfiguration,
} from '../../seed/manager/config.js';
import type { RunningManager } from '../../seed/manager/run-manager.js';
import { type ClusterObject, patchClusterShoot, readCluster as readClusterObject } from './cluster-object.js';
import type { Envtest } from './envtest.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');
export const SELECTOR_LABEL = 'node-configuration.gardener.cloud/controller-manager';
const PEM = (s: string) =>
  `-----BEGIN CERTIFICATE-----\n${Buffer.from(s).toString('base64')}\n-----END CERTIFICATE-----\n`;

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
): Promise<ShootFixture> {
  const id = fixedId ?? randomBytes(3).toString('hex');
  const namespace = `shoot--it--${id}`;
  const selector = `it-${id}`;
  const seedAdmin = KubernetesObjectApi.makeApiClient(seed.kubeConfig);
  const shootAdmin = KubernetesObjectApi.makeApiClient(shoot.kubeConfig);
  const seedCore = seed.kubeConfig.makeApiClient(CoreV1Api);
  await seedCore.createNamespace({ body: { metadata: { name: namespace } } });
  const created: { api: KubernetesObjectApi; object: KubernetesObject }[] = [];
  const create = async (api: KubernetesObjectApi, object: KubernetesObject) => {
    created.push({ api, object });
    return api.create(object);
  };

  // the controller-manager's identity in the seed: exactly its chart's ClusterRole
  const role = seedClusterRole(CONTROLLER_MANAGER_NAME) as KubernetesObject;
  role.metadata = { ...role.metadata, name: `${CONTROLLER_MANAGER_NAME}-${id}` };
  await create(seedAdmin, role);
  await create(seedAdmin, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: CONTROLLER_MANAGER_NAME, namespace },
  } as KubernetesObject);
  await create(
    seedAdmin,
    clusterRoleBinding(`${CONTROLLER_MANAGER_NAME}-${id}`, { name: CONTROLLER_MANAGER_NAME, namespace }),
  );
  const seedIdentity = await seed.kubeConfigForServiceAccount(namespace, CONTROLLER_MANAGER_NAME, 3600);

  // the shoot identity of gardener-internal: the documented minimum shoot role
  const shootSa = `gardener-osc-it-${id}`;
  const shootRole = shootClusterRole(applyMode) as KubernetesObject;
  shootRole.metadata = { ...shootRole.metadata, name: `${shootRole.metadata?.name}-${id}` };
  await create(shootAdmin, shootRole);
  await create(shootAdmin, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: shootSa, namespace: 'kube-system' },
  } as KubernetesObject);
  await create(
    shootAdmin,
    clusterRoleBinding(shootRole.metadata?.name ?? '', { name: shootSa, namespace: 'kube-system' }),
  );
  const shootIdentity = await shoot.kubeConfigForServiceAccount('kube-system', shootSa, 3600);
  const secret = (name: string, labels: Record<string, string>, data: Record<string, string>) =>
    seedAdmin.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, labels },
      data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    } as KubernetesObject);
  const sm = { 'managed-by': 'secrets-manager', 'manager-identity': 'gardenlet' };
  await secret('gardener-internal', {}, { kubeconfig: shootIdentity.exportConfig() });
  await secret('ca-bundle-1', { ...sm, 'bundle-for': 'ca' }, { 'bundle.crt': PEM(`cluster CA ${id}`) });
  await secret(
    'ca-kubelet-bundle-1',
    { ...sm, 'bundle-for': 'ca-kubelet' },
    { 'bundle.crt': PEM(`kubelet CA ${id}`) },
  );
  await secret(
    'ssh-keypair-1',
    { ...sm, name: 'ssh-keypair' },
    { id_rsa: 'private', 'id_rsa.pub': `ssh-rsa AAAA${id} current` },
  );

  const raw = parseYaml(readFileSync(join(EXAMPLES, 'cluster.yaml'), 'utf8')) as KubernetesObject;
  await seedAdmin.create({
    ...raw,
    metadata: { name: namespace, labels: { [SELECTOR_LABEL]: selector } },
  } as KubernetesObject);
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
    seedIdentity,
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
      const manager = await runControllerManager({ config, seed: seedIdentity, log });
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
      for (const { api, object } of created.reverse()) await api.delete(object).catch(() => undefined);
      await seedCore.deleteNamespace({ name: namespace }).catch(() => undefined);
    },
  };
}
