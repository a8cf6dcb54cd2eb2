/**
 * The inputs both renderers get (check 5): Kubernetes 1.25–1.29 (upstream's range) and 1.30+
 * (ours), containerd and no CRI, node-local DNS with and without IPVS, a kubelet data volume, pool
 * CA bundles, many kubelet parameters, SSH on and off, node logging on and off, both gate values,
 * a running migration, and both forms of technical ID.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseYaml } from '../../../api/index.js';
import type { RenderValues } from '../../../charts/values/render-values.js';
import type { RenderCase } from './render-case.js';

type Json = Record<string, unknown>;

const EXAMPLES = join(import.meta.dirname, '../../../examples');
const exampleCluster = () => parseYaml(readFileSync(join(EXAMPLES, 'cluster.yaml'), 'utf8')) as Json;
const exampleValues = () => parseYaml(readFileSync(join(EXAMPLES, 'values.yaml'), 'utf8')) as RenderValues;

const CLOUD_PROFILE = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'CloudProfile',
  metadata: { name: 'aws' },
  spec: {
    caBundle: '-----BEGIN CERTIFICATE-----\nY2xvdWQtcHJvZmlsZQ==\n-----END CERTIFICATE-----',
    machineTypes: [
      { name: 'small', cpu: '2', memory: '4Gi' },
      { name: 'large', cpu: '16', memory: '64Gi' },
    ],
  },
};

const SEED = {
  apiVersion: 'core.gardener.cloud/v1beta1',
  kind: 'Seed',
  metadata: { name: 'aws-eu1' },
  spec: { ingress: { domain: 'ingress.aws-eu1.seed.example.com' } },
};

/** Many kubelet parameters at once: every one the renderer maps. */
const MANY_KUBELET_PARAMETERS = {
  containerLogMaxSize: '50Mi',
  containerLogMaxFiles: 7,
  cpuCFSQuota: false,
  cpuManagerPolicy: 'static',
  evictionHard: { memoryAvailable: '300Mi', nodeFSAvailable: '8%' },
  evictionSoft: { imageFSAvailable: '12%' },
  evictionSoftGracePeriod: { memoryAvailable: '2m' },
  evictionMinimumReclaim: { memoryAvailable: '50Mi' },
  evictionMaxPodGracePeriod: 120,
  evictionPressureTransitionPeriod: '5m',
  failSwapOn: true,
  featureGates: { GracefulNodeShutdown: true },
  imageGCHighThresholdPercent: 70,
  imageGCLowThresholdPercent: 50,
  kubeReserved: { cpu: '100m', memory: '2Gi', pid: '20k' },
  systemReserved: { cpu: '50m', memory: '512Mi' },
  maxPods: 64,
  podPidsLimit: 4096,
  protectKernelDefaults: true,
  serializeImagePulls: false,
  registryPullQPS: 10,
  registryBurst: 20,
  streamingConnectionIdleTimeout: '30m',
};

interface ShootOptions {
  readonly name: string;
  readonly project: string;
  /** The technical ID; `shoot--<project>--<name>` unless given (older shoots have one dash). */
  readonly technicalId?: string;
  readonly version: string;
  readonly workers: Json[];
  readonly kubelet?: Json;
  readonly kubeProxyMode?: 'IPVS' | 'IPTables';
  readonly nodeLocalDns?: boolean;
  readonly ssh?: boolean;
  readonly ipFamilies?: ('IPv4' | 'IPv6')[];
  readonly maxDelaySeconds?: string;
}

function cluster(o: ShootOptions): Json {
  const technicalId = o.technicalId ?? `shoot--${o.project}--${o.name}`;
  return {
    apiVersion: 'extensions.gardener.cloud/v1alpha1',
    kind: 'Cluster',
    metadata: { name: technicalId },
    spec: {
      cloudProfile: CLOUD_PROFILE,
      seed: SEED,
      shoot: {
        apiVersion: 'core.gardener.cloud/v1beta1',
        kind: 'Shoot',
        metadata: {
          name: o.name,
          namespace: `garden-${o.project}`,
          ...(o.maxDelaySeconds
            ? {
                annotations: {
                  'shoot.gardener.cloud/cloud-config-execution-max-delay-seconds': o.maxDelaySeconds,
                },
              }
            : {}),
        },
        spec: {
          cloudProfileName: 'aws',
          purpose: 'production',
          kubernetes: {
            version: o.version,
            ...(o.kubelet ? { kubelet: o.kubelet } : {}),
            ...(o.kubeProxyMode ? { kubeProxy: { mode: o.kubeProxyMode } } : {}),
          },
          networking: {
            type: 'calico',
            ipFamilies: o.ipFamilies ?? ['IPv4'],
            nodes: '10.250.0.0/16',
            pods: '100.96.0.0/11',
            services: '100.64.0.0/13',
          },
          provider: {
            type: 'aws',
            workersSettings: { sshAccess: { enabled: o.ssh ?? true } },
            workers: o.workers,
          },
          ...(o.nodeLocalDns !== undefined
            ? { systemComponents: { nodeLocalDNS: { enabled: o.nodeLocalDns } } }
            : {}),
        },
        status: { technicalID: technicalId },
      },
    },
  };
}

function worker(name: string, extra: Json = {}): Json {
  return {
    name,
    machine: { type: 'small', image: { name: 'gardenlinux', version: '1443.3.0' }, architecture: 'amd64' },
    cri: { name: 'containerd' },
    minimum: 1,
    maximum: 3,
    zones: ['eu-1a'],
    ...extra,
  };
}

const VALUES: RenderValues = {
  apiServerUrl: 'https://api.shoot.project.internal.dev.example.com',
  caBundles: {
    cluster: '-----BEGIN CERTIFICATE-----\nY2x1c3Rlcg==\n-----END CERTIFICATE-----\n',
    clusterSecretName: 'ca-a1b2c3d4',
    kubelet: '-----BEGIN CERTIFICATE-----\na3ViZWxldA==\n-----END CERTIFICATE-----\n',
  },
  sshPublicKeys: ['ssh-ed25519 AAAAC3Nza current', 'ssh-ed25519 AAAAC3Nza old'],
};

/**
 * Every case renders the v1.91 mode of the node agents' identity (the shared ServiceAccount), the
 * mode that claims upstream's bytes: the per-node mode differs from v1.91 on purpose
 * (docs/compatibility.md I1-I11; its objects are judged by the goldens and the permission matrix).
 */
const V191_IDENTITY = { nodeAgentIdentity: 'serviceAccount' } as const;

export const RENDER_CORPUS: readonly RenderCase[] = (
  [
    {
      name: 'example (1.29-1.31, data volume, gVisor, logging)',
      cluster: exampleCluster(),
      values: exampleValues(),
      useGardenerNodeAgent: true,
    },
    {
      name: 'example, gate off',
      cluster: exampleCluster(),
      values: exampleValues(),
      useGardenerNodeAgent: false,
    },
    {
      name: 'example, migration running',
      cluster: exampleCluster(),
      values: exampleValues(),
      useGardenerNodeAgent: true,
      legacyNodes: true,
    },
    {
      name: '1.25, no CRI, IPVS + node-local DNS, many kubelet parameters, SSH off, one-dash technical ID',
      cluster: cluster({
        name: 'classic',
        project: 'dev',
        technicalId: 'shoot-dev--classic',
        version: '1.25.16',
        kubelet: MANY_KUBELET_PARAMETERS,
        kubeProxyMode: 'IPVS',
        nodeLocalDns: true,
        ssh: false,
        maxDelaySeconds: '120',
        workers: [
          worker('plain', {
            cri: undefined,
            sysctls: { 'net.core.somaxconn': '4096', 'vm.max_map_count': '262144' },
          }),
        ],
      }),
      values: { ...VALUES, nodeLogging: true },
      useGardenerNodeAgent: true,
    },
    {
      name: '1.26 + 1.27, pool CA bundles, IPv6 first, large machines, pool kubelet overrides',
      cluster: cluster({
        name: 'cas',
        project: 'prod',
        version: '1.26.15',
        ipFamilies: ['IPv6'],
        workers: [
          worker('one', { caBundle: '-----BEGIN CERTIFICATE-----\ncG9vbC1vbmU=\n-----END CERTIFICATE-----' }),
          worker('two', {
            machine: { type: 'large', image: { name: 'ubuntu', version: '22.4.0' }, architecture: 'arm64' },
            caBundle: '-----BEGIN CERTIFICATE-----\ncG9vbC10d28=\n-----END CERTIFICATE-----',
            kubernetes: {
              version: '1.27.13',
              kubelet: { maxPods: 250, evictionHard: { memoryAvailable: '1Gi' } },
            },
            labels: { team: 'b' },
            taints: [{ key: 'dedicated', value: 'b', effect: 'NoSchedule' }],
          }),
        ],
      }),
      values: VALUES,
      useGardenerNodeAgent: true,
    },
    {
      name: '1.28, node-local DNS without IPVS, data volume, gVisor',
      cluster: cluster({
        name: 'data',
        project: 'dev',
        version: '1.28.9',
        nodeLocalDns: true,
        kubelet: { evictionSoft: { memoryAvailable: '400Mi' }, protectKernelDefaults: false },
        workers: [
          worker('data', {
            dataVolumes: [{ name: 'kubelet', size: '100Gi', type: 'gp3' }],
            kubeletDataVolumeName: 'kubelet',
            cri: { name: 'containerd', containerRuntimes: [{ type: 'gvisor' }] },
          }),
        ],
      }),
      values: VALUES,
      useGardenerNodeAgent: true,
    },
    {
      name: '1.29, gate off, no CRI, data volume',
      cluster: cluster({
        name: 'legacy',
        project: 'ops',
        version: '1.29.4',
        workers: [
          worker('legacy', {
            cri: undefined,
            dataVolumes: [{ name: 'kubelet', size: '20Gi' }],
            kubeletDataVolumeName: 'kubelet',
          }),
        ],
      }),
      values: { ...VALUES, nodeLogging: true },
      useGardenerNodeAgent: false,
    },
    {
      name: '1.32 and 1.34 (ours beyond upstream)',
      cluster: cluster({
        name: 'new',
        project: 'dev',
        version: '1.32.3',
        workers: [worker('a'), worker('b', { kubernetes: { version: '1.34.1' } })],
      }),
      values: VALUES,
      useGardenerNodeAgent: true,
    },
  ] as RenderCase[]
).map((c) => ({ ...c, values: { ...c.values, ...V191_IDENTITY } }));
