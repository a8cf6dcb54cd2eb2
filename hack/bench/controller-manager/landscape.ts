/**
 * The benchmark's landscape: a seed and a shoot kube-apiserver (each with an audit log), the
 * controller-manager's seed identity bound to its chart's ClusterRole, 100 Nodes per pool of the
 * example in the shoot, and per benchmarked shoot a seed namespace with the secrets-manager
 * secrets, its own `gardener-internal` (a shoot ServiceAccount bound to the documented shoot role)
 * and a copy of examples/cluster.yaml as its Cluster.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { delayWindow, planNodeDelays } from '../../../controllers/node-delay/decide.js';
import { KubeClient } from '../../../runtime/kube/kube-client.js';
import { KubeHttp } from '../../../runtime/kube/kube-http.js';
import { RESOURCE } from '../../../runtime/kube/resource.js';
import {
  bindShootRole,
  controllerManagerSeedIdentity,
} from '../../landscape/controller-manager-identities.js';
import { type Envtest, startEnvtest } from '../../landscape/envtest.js';
import { exampleCluster } from '../../landscape/example-cluster.js';
import { fakePem, writeShootNamespaceSecrets } from '../../landscape/shoot-namespace-secrets.js';
import { AuditLog } from '../support/audit.js';
import { type Cleanups, progress } from '../support/run.js';
import { MANAGER_NAMESPACE, NODES_PER_POOL, SELECTOR, shootNamespace } from './options.js';

export interface Landscape {
  readonly seed: Envtest;
  readonly shoot: Envtest;
  readonly seedAdmin: KubeClient;
  readonly shootAdmin: KubeClient;
  readonly seedAudit: AuditLog;
  readonly shootAudit: AuditLog;
  readonly pools: readonly string[];
  readonly nodes: number;
  /** The controller-manager's seed kubeconfig (its ServiceAccount, bound to the chart's ClusterRole). */
  readonly managerKubeconfig: string;
  stop(): Promise<void>;
}

export async function startLandscape(run: string, dir: string, cleanups: Cleanups): Promise<Landscape> {
  progress(`${run}: starting a seed and a shoot kube-apiserver`);
  const [seed, shoot] = await Promise.all([
    startEnvtest({ name: `bench-cm-seed-${run}` }),
    startEnvtest({ name: `bench-cm-shoot-${run}` }),
  ]);
  const stop = cleanups.push(`API servers of ${run}`, () => Promise.all([seed.stop(), shoot.stop()]));
  const seedHttp = new KubeHttp(seed.kubeConfig);
  const shootHttp = new KubeHttp(shoot.kubeConfig);
  const seedAdmin = new KubeClient(seedHttp);
  const shootAdmin = new KubeClient(shootHttp);

  await seedAdmin.create(RESOURCE.namespace, { metadata: { name: MANAGER_NAMESPACE } });
  const identity = await controllerManagerSeedIdentity(seed, seedAdmin, {
    namespace: MANAGER_NAMESPACE,
    expirationSeconds: 24 * 3600,
  });
  const managerKubeconfig = join(dir, `${run}-seed.kubeconfig`);
  writeFileSync(managerKubeconfig, identity.kubeConfig.exportConfig());

  const workers = exampleCluster().spec.shoot.spec.provider.workers as { name: string; zones?: string[] }[];
  const pools = workers.map((w) => ({
    name: w.name,
    zones: w.zones?.length ? w.zones : ['zone-a'],
  }));
  const nodes = await createNodes(shootAdmin, pools);
  progress(`${run}: ${nodes} Nodes in ${pools.length} pools`);
  return {
    seed,
    shoot,
    seedAdmin,
    shootAdmin,
    seedAudit: new AuditLog(seed.auditLogPath),
    shootAudit: new AuditLog(shoot.auditLogPath),
    pools: pools.map((p) => p.name),
    nodes,
    managerKubeconfig,
    stop: async () => {
      await Promise.all([seedHttp.close(), shootHttp.close()]);
      await stop();
    },
  };
}

/**
 * 100 Nodes per pool, spread over the pool's zones, labelled as the machine controller labels them,
 * each already carrying the reconciliation delay the node-delay controller assigns them. Every
 * benchmarked shoot runs its own node-delay controller over these same Nodes: were they created
 * bare, the shoots would annotate them at once, each from a slightly different view (some Nodes
 * annotated by a faster shoot already), and every controller would then set its own assignment
 * back forever, as it does to a hand-edited delay. That fight has no counterpart in a real seed,
 * where one controller owns a shoot's Nodes. So the shoots find their Nodes as a running shoot's
 * are (the common case: a controller-manager rolled out over existing shoots), and the delays'
 * cost at scale is hack/bench/node-delay.ts's to measure.
 */
export async function createNodes(admin: KubeClient, pools: readonly { name: string; zones: string[] }[]) {
  const version = '1.30.5';
  const bare = pools.flatMap((pool) =>
    Array.from({ length: NODES_PER_POOL }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: `${pool.name}-${String(i).padStart(3, '0')}`,
        labels: {
          'worker.gardener.cloud/pool': pool.name,
          'worker.gardener.cloud/kubernetes-version': version,
          'worker.gardener.cloud/cri-name': 'containerd',
          'topology.kubernetes.io/zone': pool.zones[i % pool.zones.length]!,
          'kubernetes.io/hostname': `${pool.name}-${i}`,
        },
      },
    })),
  );
  const window = delayWindow(exampleCluster().spec.shoot.metadata?.annotations, 0);
  const plan = planNodeDelays({ nodes: bare, minDelay: window.minDelay, maxDelay: window.maxDelay });
  const patches = new Map(plan.patches.map((p) => [p.name, p.body.metadata.annotations] as const));
  const bodies = bare.map((n) => ({
    ...n,
    metadata: { ...n.metadata, annotations: patches.get(n.metadata.name) },
  }));
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) await admin.create(RESOURCE.node, bodies[next++]!);
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return bodies.length;
}

export async function createShoots(landscape: Landscape, count: number): Promise<string[]> {
  const { shoot, seedAdmin, shootAdmin } = landscape;
  const accounts = Array.from({ length: count }, (_, i) => `bench-shoot-${i}`);
  await bindShootRole(shootAdmin, { applyMode: 'managedResource', serviceAccounts: accounts });
  const namespaces: string[] = [];
  for (let i = 0; i < count; i++) {
    const namespace = shootNamespace(i);
    await seedAdmin.create(RESOURCE.namespace, { metadata: { name: namespace } });
    const access = await shoot.kubeConfigForServiceAccount('kube-system', accounts[i]!, 24 * 3600);
    await writeShootNamespaceSecrets(seedAdmin, namespace, {
      suffix: '1',
      shootKubeconfig: access.exportConfig(),
      clusterCaPem: fakePem('bench cluster CA'),
      kubeletCaPem: fakePem('bench kubelet CA'),
      sshPublicKey: 'ssh-rsa AAAAbench bench',
    });
    await seedAdmin.create(RESOURCE.cluster, {
      ...exampleCluster(),
      metadata: { name: namespace, labels: SELECTOR },
    });
    namespaces.push(namespace);
    if ((i + 1) % 10 === 0) progress(`  ${i + 1} of ${count} shoots created`);
  }
  return namespaces;
}
