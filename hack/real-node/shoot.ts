/**
 * The shoot side of a real node, as gardenlet and the seed leave it for one worker pool: the
 * provision OSC rendered into user data by os-local, the pool's OSC secret and the agent's RBAC
 * in the shoot (what the ManagedResources hold), a bootstrap token, the access tokens
 * gardener-resource-manager keeps in `gardener-node-agent` and `gardener-valitail`, and the Node the
 * kubelet would register. The nodes reach the shoot API server at https://127.0.0.1 (api-proxy.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CoreV1Api,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import {
  ANNOTATION,
  BOOTSTRAP_TOKEN_PLACEHOLDER,
  decodeOperatingSystemConfig,
  GARDENER_VERSION_ANNOTATION,
  LABEL,
  type OperatingSystemConfig,
  parseYaml,
  sha256Hex,
  stringifyYaml,
} from '../../api/index.js';
import { DEFAULT_NOW, render } from '../../cli/render-command.js';
import { renderUserData } from '../../components/os-local/index.js';
import { DEFAULT_IMAGE_NAME } from '../build-node-agent-image.js';
import type { Envtest } from '../landscape/envtest.js';
import { nodeAgentGroupGrants } from './node-agent-grants.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');
export const POOL = 'cpu-worker';
/** Where a node reaches the shoot API server (its certificate holds 127.0.0.1). */
export const API_SERVER_IN_NODE = 'https://127.0.0.1';

type ClusterYaml = {
  metadata: { annotations?: Record<string, string> };
  spec: {
    shoot: { spec: { kubernetes?: { version: string }; provider: { workers: Record<string, unknown>[] } } };
  };
};

export interface ShootForNodes {
  readonly oscSecretName: string;
  /** osc.yaml of the pool as rendered (the reconcile OSC). */
  readonly oscYaml: string;
  /** The provision user data, with this node's bootstrap token. */
  readonly userData: string;
  /** Every image the OSCs name, by the path taken from it. */
  readonly images: readonly { image: string; path: string }[];
  /** Publishes a new osc.yaml for the pool (as gardenlet does); returns its checksum. */
  publishOsc(osc: OperatingSystemConfig | string): Promise<string>;
  /** The Node the kubelet would register, with the seed's reconciliation delay of 0s. */
  registerNode(name: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** What a real kubelet needs of the shoot beyond the defaults (hack/real-kubelet). */
export interface ShootOptions {
  /** The pool's Kubernetes version (default: the example's). */
  readonly kubernetesVersion?: string;
  /** A real CA for the kubelet's clientCAFile (default: a placeholder no kubelet can load). */
  readonly kubeletCaPem?: string;
  /**
   * The Gardener contract the pool is rendered for, e.g. `v1.150.0` (default: the example's,
   * v1.91.4): set on the Cluster as examples/cluster-v1.150.yaml does.
   */
  readonly gardenerVersion?: string;
}

export async function setUpShoot(shoot: Envtest, options: ShootOptions = {}): Promise<ShootForNodes> {
  const dir = mkdtempSync(join(tmpdir(), 'real-node-shoot-'));
  const core = shoot.kubeConfig.makeApiClient(CoreV1Api);
  const objects = KubernetesObjectApi.makeApiClient(shoot.kubeConfig);
  const created: KubernetesObject[] = [];
  const apply = async (o: KubernetesObject) => {
    await objects.patch(o, undefined, undefined, 'real-node', true, 'application/apply-patch+yaml' as never);
    created.push(o);
  };

  // the example Cluster with one pool whose machines have no kubelet data volume to format
  // (examples/cluster-v1.150.yaml for the v1.150.0 contract: versions that contract supports)
  const example = options.gardenerVersion === 'v1.150.0' ? 'cluster-v1.150.yaml' : 'cluster.yaml';
  const cluster = parseYaml(readFileSync(join(EXAMPLES, example), 'utf8')) as ClusterYaml;
  const worker = cluster.spec.shoot.spec.provider.workers.find((w) => w.name === POOL)!;
  delete worker.dataVolumes;
  delete worker.kubeletDataVolumeName;
  cluster.spec.shoot.spec.provider.workers = [worker];
  if (options.kubernetesVersion) worker.kubernetes = { version: options.kubernetesVersion };
  if (options.gardenerVersion) {
    cluster.metadata.annotations = {
      ...cluster.metadata.annotations,
      [GARDENER_VERSION_ANNOTATION]: options.gardenerVersion,
    };
    // a pool is never newer than its control plane
    if (options.kubernetesVersion)
      cluster.spec.shoot.spec.kubernetes = {
        ...cluster.spec.shoot.spec.kubernetes,
        version: options.kubernetesVersion,
      };
  }
  const perNodeIdentity = options.gardenerVersion === 'v1.150.0';
  const ca = Buffer.from(shoot.kubeConfig.getCurrentCluster()?.caData ?? '', 'base64').toString('utf8');
  const values = {
    apiServerUrl: API_SERVER_IN_NODE,
    caBundles: {
      cluster: ca,
      clusterSecretName: 'ca-bundle-real-node',
      kubelet:
        options.kubeletCaPem ??
        `-----BEGIN CERTIFICATE-----\n${Buffer.from('real-node kubelet CA').toString('base64')}\n-----END CERTIFICATE-----\n`,
    },
    sshPublicKeys: ['ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDrealnode real-node'],
    images: { nodeAgent: DEFAULT_IMAGE_NAME },
    nodeLogging: true,
    // v1.91: the shared ServiceAccount, this shoot has no controller-manager to approve per-node
    // identities (test/integration/node-agent-identity*.test.ts and the e2e cover those); v1.150
    // has only per-node identities: the test approves the agent's CSR and node-agent-grants.ts
    // stands in for the authorizer
    nodeAgentIdentity: perNodeIdentity ? 'node' : 'serviceAccount',
  };
  const valuesFile = join(dir, 'values.yaml');
  writeFileSync(valuesFile, stringifyYaml(values));
  const renderWith = (target: 'seed' | 'shoot') => {
    const clusterFile = join(dir, 'cluster.yaml');
    writeFileSync(clusterFile, stringifyYaml(cluster));
    return render({ cluster: clusterFile, values: valuesFile, target, now: DEFAULT_NOW }).objects;
  };

  const seedObjects = renderWith('seed');
  const oscs = seedObjects.filter((o) => o.kind === 'OperatingSystemConfig') as OperatingSystemConfig[];
  const provision = oscs.find((o) => o.spec.purpose === 'provision')!;
  const shootObjects = renderWith('shoot');
  const secretOf = (objs: Record<string, unknown>[]) =>
    objs.find(
      (o) =>
        o.kind === 'Secret' &&
        (o.metadata as { labels?: Record<string, string> }).labels?.[LABEL.workerPool] === POOL,
    ) as unknown as KubernetesObject & { data: Record<string, string> };
  const secret = secretOf(shootObjects);
  const oscSecretName = secret.metadata!.name!;
  const oscYaml = Buffer.from(secret.data['osc.yaml']!, 'base64').toString('utf8');
  // the access tokens gardener-resource-manager keeps in the shoot (v1.150's nodes ship their logs
  // with the OpenTelemetry collector)
  const tokens = [
    'gardener-node-agent',
    perNodeIdentity ? 'gardener-opentelemetry-collector' : 'gardener-valitail',
  ];
  for (const o of shootObjects.filter((o) => String(o.apiVersion).startsWith('rbac.')))
    await apply(o as KubernetesObject);
  if (perNodeIdentity) for (const o of nodeAgentGroupGrants([oscSecretName, ...tokens])) await apply(o);
  await apply(secret);

  // a bootstrap token, as machine-controller-manager puts it into each machine's user data
  const id = randomBytes(3).toString('hex');
  const token = randomBytes(8).toString('hex');
  await apply({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: { 'token-id': id, 'token-secret': token, 'usage-bootstrap-authentication': 'true' },
  } as KubernetesObject);
  const userData = renderUserData(provision).replaceAll(BOOTSTRAP_TOKEN_PLACEHOLDER, `${id}.${token}`);

  for (const name of tokens) {
    const kc = await shoot.kubeConfigForServiceAccount('kube-system', name, 4 * 3600);
    await apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: 'kube-system' },
      stringData: { token: kc.getCurrentUser()?.token ?? '' },
    } as KubernetesObject);
  }

  const images = new Map<string, { image: string; path: string }>();
  for (const osc of [...oscs, decodeOperatingSystemConfig(oscYaml)]) {
    const spec = 'ok' in osc ? (osc.ok ? osc.value.spec : undefined) : osc.spec;
    for (const f of spec?.files ?? []) {
      const ref = f.content.imageRef;
      if (ref)
        images.set(`${ref.image} ${ref.filePathInImage}`, { image: ref.image, path: ref.filePathInImage });
    }
  }
  images.set('node-agent', { image: DEFAULT_IMAGE_NAME, path: '/gardener-node-agent' });

  const publishOsc = async (osc: OperatingSystemConfig | string) => {
    const text = typeof osc === 'string' ? osc : stringifyYaml(osc);
    const checksum = sha256Hex(text);
    await core.patchNamespacedSecret(
      {
        name: oscSecretName,
        namespace: 'kube-system',
        body: {
          metadata: { annotations: { [ANNOTATION.checksumDataScript]: checksum } },
          data: { 'osc.yaml': Buffer.from(text).toString('base64') },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    return checksum;
  };

  return {
    oscSecretName,
    oscYaml,
    userData,
    images: [...images.values()],
    publishOsc,
    registerNode: async (name) => {
      await core.createNode({
        body: {
          metadata: {
            name,
            labels: { [LABEL.hostname]: name },
            annotations: { [ANNOTATION.reconciliationDelay]: '0s' },
          },
        },
      });
      created.push({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
    },
    cleanup: async () => {
      for (const o of created.reverse()) await objects.delete(o).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
