/**
 * The landscape of the demo on two API servers: a seed with the shoot namespace and its Cluster
 * (examples/cluster.yaml), the secrets gardenlet's secrets manager would have left there (the
 * shoot's real CA, a kubelet CA, an SSH key pair), the `gardener-internal` kubeconfig of a shoot
 * identity bound to the controller-manager's documented minimum shoot role, and the
 * controller-manager's own seed identity with exactly its chart's ClusterRole. The
 * controller-manager runs as a child process (`gardener-osc controller-manager`) in direct mode, so
 * no other Gardener component is needed, with os-local as the OS extension.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CoordinationV1Api, CoreV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import { ANNOTATION, stringifyYaml } from '../../api/index.js';
import { CONTROLLER_MANAGER_NAME } from '../../charts/controller-manager/controller-manager.js';
import { KubeClient } from '../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../runtime/kube/resource.js';
import { type ClusterObject, patchClusterShoot, readCluster } from '../landscape/cluster-object.js';
import {
  controllerManagerSeedIdentity,
  controllerManagerShootIdentity,
} from '../landscape/controller-manager-identities.js';
import { createObject } from '../landscape/create-object.js';
import type { Envtest } from '../landscape/envtest.js';
import { exampleCluster } from '../landscape/example-cluster.js';
import { fakePem, writeShootNamespaceSecrets } from '../landscape/shoot-namespace-secrets.js';
import { type SupervisedProcess, startSupervised } from './processes.js';
import { Interrupted, sleep } from './wait.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const SELECTOR_LABEL = 'node-configuration.gardener.cloud/controller-manager';
export const SELECTOR_VALUE = 'demo';
/** The rollout gate as the demo runs it: the defaults but a short settle time and waves of half a pool. */
export const DEMO_ROLLOUT = {
  canary: 1,
  growth: 2,
  maxPerWave: '50%',
  settleTime: '3s',
  checkInterval: '500ms',
} as const;
export const DEMO_SETTLE_MS = 3000;
const CM_NAMESPACE = 'garden';

export interface Landscape {
  readonly seed: Envtest;
  readonly shoot: Envtest;
  /** The shoot namespace in the seed, also the Cluster's name. */
  readonly namespace: string;
  readonly seedCore: CoreV1Api;
  readonly shootCore: CoreV1Api;
  readonly shootLeases: CoordinationV1Api;
  readonly seedObjects: KubernetesObjectApi;
  /** The shoot API server's CA (PEM), as the nodes trust it. */
  readonly shootCaFile: string;
  cluster(): Promise<ClusterObject>;
  /** Changes the Cluster's embedded shoot (a merge patch of the whole shoot). */
  patchShoot(mutate: (shoot: ClusterObject['spec']['shoot']) => void): Promise<void>;
  startControllerManager(options: {
    useGardenerNodeAgent: boolean;
    logFile: string;
    signal?: AbortSignal;
  }): Promise<ControllerManager>;
}

export interface ControllerManager {
  readonly process: SupervisedProcess;
  readonly healthUrl: string;
  readonly metricsUrl: string;
  /** The value of a metric line (`name{labels}`) or undefined. */
  metric(name: string, labels?: Record<string, string>): Promise<number | undefined>;
  stop(): Promise<void>;
}

/** Where the controller-manager serves the node agent authorizer. */
export interface AuthorizerEndpoint {
  readonly bindAddress: string;
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  readonly tokenKeyFile: string;
}

/** The shoot namespace in the seed of examples/cluster.yaml (the Cluster's name). */
export function exampleShootNamespace(): string {
  return exampleCluster().metadata?.name ?? 'shoot--dev--demo';
}

export async function setUpLandscape(o: {
  seed: Envtest;
  shoot: Envtest;
  workDir: string;
  maxDelaySeconds: number;
  authorizer: AuthorizerEndpoint;
  /** The pools' machines have no data volumes (real nodes: no disk to format for the kubelet). */
  withoutDataVolumes?: boolean;
}): Promise<Landscape> {
  const { seed, shoot, workDir } = o;
  const seedObjects = KubernetesObjectApi.makeApiClient(seed.kubeConfig);
  const seedCore = seed.kubeConfig.makeApiClient(CoreV1Api);
  const shootCore = shoot.kubeConfig.makeApiClient(CoreV1Api);
  const namespace = exampleShootNamespace();
  const seedHttp = new KubeHttp(seed.kubeConfig);
  const shootHttp = new KubeHttp(shoot.kubeConfig);
  const seedAdmin = new KubeClient(seedHttp);
  const shootAdmin = new KubeClient(shootHttp);
  // the demo may set up again on API servers that hold an earlier run's landscape
  const keepExisting = true;
  const seedKubeconfig = join(workDir, 'controller-manager', 'seed.kubeconfig');
  const shootCaFile = join(workDir, 'shoot-ca.crt');
  try {
    for (const ns of [namespace, CM_NAMESPACE])
      await createObject(seedAdmin, RESOURCE.namespace, { metadata: { name: ns } }, { keepExisting });

    const seedIdentity = await controllerManagerSeedIdentity(seed, seedAdmin, {
      namespace: CM_NAMESPACE,
      expirationSeconds: 4 * 3600,
      keepExisting,
    });
    writeFileSync(seedKubeconfig, seedIdentity.kubeConfig.exportConfig(), { mode: 0o600 });
    const shootIdentity = await controllerManagerShootIdentity(shoot, shootAdmin, {
      applyMode: 'direct',
      serviceAccount: `${CONTROLLER_MANAGER_NAME}-shoot-access`,
      expirationSeconds: 4 * 3600,
      keepExisting,
    });

    // the cluster CA is the shoot API server's real one
    const shootCa = Buffer.from(shoot.kubeConfig.getCurrentCluster()?.caData ?? '', 'base64').toString(
      'utf8',
    );
    writeFileSync(shootCaFile, shootCa);
    await writeShootNamespaceSecrets(
      seedAdmin,
      namespace,
      {
        suffix: 'demo',
        shootKubeconfig: shootIdentity.kubeConfig.exportConfig(),
        clusterCaPem: shootCa,
        kubeletCaPem: fakePem('demo kubelet CA'),
        sshPublicKey: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDdemo demo-key',
      },
      { keepExisting },
    );

    // the Cluster, opted in by label, with the demo's max delay on the embedded shoot
    const raw = exampleCluster();
    if (o.withoutDataVolumes)
      for (const w of raw.spec.shoot.spec.provider.workers as Record<string, unknown>[]) {
        delete w.dataVolumes;
        delete w.kubeletDataVolumeName;
      }
    raw.metadata = { name: namespace, labels: { [SELECTOR_LABEL]: SELECTOR_VALUE } };
    raw.spec.shoot.metadata.annotations = {
      ...raw.spec.shoot.metadata.annotations,
      [ANNOTATION.maxDelaySeconds]: String(o.maxDelaySeconds),
    };
    await createObject(seedAdmin, RESOURCE.cluster, raw, { keepExisting });
  } finally {
    await Promise.all([seedHttp.close(), shootHttp.close()]);
  }

  const cluster = () => readCluster(seedObjects, namespace);

  return {
    seed,
    shoot,
    namespace,
    seedCore,
    shootCore,
    shootLeases: shoot.kubeConfig.makeApiClient(CoordinationV1Api),
    seedObjects,
    shootCaFile,
    cluster,
    patchShoot: (mutate) => patchClusterShoot(seedObjects, namespace, mutate, 'gardener-osc-demo'),
    startControllerManager: (options) =>
      startControllerManager({
        ...options,
        seedKubeconfig,
        dir: join(workDir, 'controller-manager'),
        authorizer: o.authorizer,
      }),
  };
}

async function startControllerManager(o: {
  useGardenerNodeAgent: boolean;
  logFile: string;
  signal?: AbortSignal;
  seedKubeconfig: string;
  dir: string;
  authorizer: AuthorizerEndpoint;
}): Promise<ControllerManager> {
  const configFile = join(o.dir, `config-${o.useGardenerNodeAgent ? 'agent' : 'legacy'}.yaml`);
  writeFileSync(
    configFile,
    stringifyYaml({
      apiVersion: 'node-configuration.gardener.cloud/v1alpha1',
      kind: 'ControllerManagerConfiguration',
      seedKubeconfig: o.seedKubeconfig,
      clusterSelector: { matchLabels: { [SELECTOR_LABEL]: SELECTOR_VALUE } },
      applyMode: 'direct',
      featureGates: { UseGardenerNodeAgent: o.useGardenerNodeAgent },
      // per-node identities (the default), with the authorizer the shoot's kube-apiserver asks
      nodeAgent: { identity: 'node', authorizer: o.authorizer },
      // one replica: no lease to hand over when the demo restarts it with the gate on
      leaderElection: { enabled: false },
      server: { healthProbes: { port: 0 }, metrics: { port: 0 } },
      controllers: {
        osLocal: { enabled: true, types: ['gardenlinux', 'ubuntu'] },
        migration: { checkInterval: '1s' },
        rollout: DEMO_ROLLOUT,
      },
      logFormat: 'json',
    }),
  );
  const env = { ...process.env };
  delete env.KUBECONFIG;
  // the log may hold an earlier instance's lines: only what this one writes counts
  const logStart = existsSync(o.logFile) ? statSync(o.logFile).size : 0;
  const process_ = startSupervised({
    name: 'controller-manager',
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'cli/main.ts'), 'controller-manager', '--config', configFile],
    env,
    cwd: ROOT,
    logFile: o.logFile,
    graceSeconds: 10,
  });
  const deadline = Date.now() + 120_000;
  let urls: { health: string; metrics: string } | undefined;
  while (!urls) {
    if (o.signal?.aborted) {
      await process_.stop();
      throw new Interrupted();
    }
    if (!process_.running || Date.now() > deadline) {
      await process_.stop();
      throw new Error(
        `the controller-manager did not start${process_.running ? ' within 120 s' : ''}; its log:\n${tail(o.logFile)}`,
      );
    }
    for (const entry of jsonLines(o.logFile, logStart)) {
      if (entry.msg === 'Started gardener-osc controller-manager')
        urls = { health: String(entry.health), metrics: String(entry.metrics) };
    }
    if (!urls) await sleep(200);
  }
  const { health, metrics } = urls;
  return {
    process: process_,
    healthUrl: health,
    metricsUrl: metrics,
    async metric(name, labels = {}) {
      const text = await (await fetch(`${metrics}/metrics`)).text();
      for (const line of text.split('\n')) {
        const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$/.exec(line);
        if (!m || m[1] !== name) continue;
        const wanted = Object.entries(labels).every(([k, v]) => m[2]?.includes(`${k}="${v}"`));
        if (wanted) return Number(m[3]);
      }
      return undefined;
    },
    async stop() {
      await process_.stop(20_000);
    },
  };
}

/** The JSON log lines of a file (other lines, e.g. the supervisor's, are skipped). */
export function jsonLines(file: string, fromByte = 0): Record<string, unknown>[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file).subarray(fromByte).toString('utf8');
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line being written
    }
  }
  return out;
}

export function tail(file: string, chars = 3000): string {
  return existsSync(file) ? readFileSync(file, 'utf8').slice(-chars) : '(no log)';
}
