/**
 * From a Cluster and the render values to each worker pool's component context, as gardenlet's
 * botanist and OSC component compute it (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go,
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go).
 */
import {
  type Cluster,
  keyFor,
  type MaxDelay,
  maxDelayFromShoot,
  NODE_AGENT_IDENTITY,
  type NodeAgentIdentityMode,
  parseSemVer,
  type SemVer,
  seconds,
  type Worker,
} from '../../api/index.js';
import type { ComponentContext } from '../../components/component.js';
import { kubeletParameters } from './kubelet-parameters.js';
import { nodeLabelsForWorkerPool } from './node-labels.js';
import { DEFAULT_IMAGES, imageString, PLACEHOLDER_CA, type RenderValues } from './render-values.js';

export interface ShootValues {
  readonly useGardenerNodeAgent: boolean;
  readonly nodeAgentIdentity: NodeAgentIdentityMode;
  readonly namespace: string;
  readonly apiServerUrl: string;
  readonly caBundle: string | undefined;
  readonly clusterCa: { bundle: string; secretName: string };
  readonly kubeletCaBundle: string;
  readonly maxDelay: MaxDelay;
  readonly images: { readonly [K in keyof typeof DEFAULT_IMAGES]: string };
}

/** `cloud profile CA + "\n" + cluster CA` (a leading newline when the profile has none, as upstream). */
export function shootCaBundle(cloudProfileCa: string | undefined, clusterCa: string): string | undefined {
  let bundle = cloudProfileCa ?? '';
  if (clusterCa) bundle = `${bundle}\n${clusterCa}`;
  return bundle === '' ? undefined : bundle;
}

/** The 10th address of the service network, where Gardener puts CoreDNS. */
export function clusterDnsFromServices(services: string): string {
  const [address] = services.split('/');
  const octets = (address ?? '').split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) {
    throw new Error(
      `spec.networking.services: "${services}" is not an IPv4 network; set clusterDnsAddress in the values`,
    );
  }
  const value = ((octets[0]! << 24) | (octets[1]! << 16) | (octets[2]! << 8) | octets[3]!) >>> 0;
  const dns = value + 10;
  return [dns >>> 24, (dns >>> 16) & 255, (dns >>> 8) & 255, dns & 255].join('.');
}

/**
 * The host of the shoot's Vali (gardenlet's ComputeIngressHost("v")): `v-<short ID>.<seed ingress
 * domain>`, the short ID being the technical ID without its `shoot-` prefix and one more dash.
 * `shoot--dev--demo` gives `v-dev--demo`, `shoot-dev--demo` gives `v-dev--demo` too.
 */
export function valiIngressHost(technicalId: string, ingressDomain: string): string {
  return `v-${technicalId.replace(/^shoot--?/, '')}.${ingressDomain}`;
}

function shootNameParts(cluster: Cluster): { project: string; name: string } {
  const m = /^shoot--([^-]+(?:-[^-]+)*)--(.+)$/.exec(cluster.name);
  return m
    ? { project: m[1]!, name: m[2]! }
    : { project: 'garden', name: cluster.shoot.metadata.name ?? cluster.name };
}

export function shootValues(
  cluster: Cluster,
  values: RenderValues,
  useGardenerNodeAgent: boolean,
): ShootValues {
  const ca = values.caBundles ?? PLACEHOLDER_CA;
  const { project, name } = shootNameParts(cluster);
  const domain = cluster.seed.spec.ingress?.domain ?? 'example.com';
  return {
    useGardenerNodeAgent,
    nodeAgentIdentity: values.nodeAgentIdentity ?? NODE_AGENT_IDENTITY.node,
    namespace: cluster.name,
    apiServerUrl: values.apiServerUrl ?? `https://api.${name}.${project}.internal.${domain}`,
    caBundle: shootCaBundle(cluster.cloudProfile.spec.caBundle, ca.cluster),
    clusterCa: { bundle: ca.cluster, secretName: ca.clusterSecretName },
    kubeletCaBundle: ca.kubelet,
    maxDelay: maxDelayFromShoot(cluster.shoot.metadata.annotations),
    images: { ...DEFAULT_IMAGES, ...values.images },
  };
}

export function effectiveVersion(cluster: Cluster, worker: Worker): SemVer {
  return parseSemVer(worker.kubernetes?.version ?? cluster.shoot.spec.kubernetes.version);
}

export function workerPoolContext(
  cluster: Cluster,
  values: RenderValues,
  shoot: ShootValues,
  worker: Worker,
): ComponentContext {
  const spec = cluster.shoot.spec;
  const version = effectiveVersion(cluster, worker);
  const nodeLocalDns = spec.systemComponents?.nodeLocalDNS?.enabled ?? false;
  const ipvs = spec.kubernetes.kubeProxy?.mode === 'IPVS';
  const technicalId = cluster.shoot.status?.technicalID ?? cluster.name;
  const logging = values.nodeLogging ?? false;
  const images: Record<string, string> = {
    'pause-container': shoot.images.pauseContainer,
    valitail: shoot.images.valitail,
    hyperkube: imageString(
      shoot.images.hyperkubeRepository,
      `v${version.major}.${version.minor}.${version.patch}`,
    ),
  };
  if (shoot.useGardenerNodeAgent) images['gardener-node-agent'] = shoot.images.nodeAgent;
  return {
    key: keyFor(shoot.useGardenerNodeAgent, worker.name, version, worker.cri?.name),
    useGardenerNodeAgent: shoot.useGardenerNodeAgent,
    nodeAgentIdentity: shoot.nodeAgentIdentity,
    workerPoolName: worker.name,
    caBundle: worker.caBundle
      ? shoot.caBundle === undefined
        ? worker.caBundle
        : `${shoot.caBundle}\n${worker.caBundle}`
      : shoot.caBundle,
    clusterCaBundle: shoot.clusterCa.bundle,
    kubeletCaBundle: shoot.kubeletCaBundle,
    clusterDnsAddress:
      nodeLocalDns && ipvs
        ? '169.254.20.10'
        : (values.clusterDnsAddress ?? clusterDnsFromServices(spec.networking?.services ?? '100.104.0.0/13')),
    clusterDomain: 'cluster.local',
    criName: worker.cri?.name ?? 'containerd',
    images,
    nodeLabels: nodeLabelsForWorkerPool(worker, nodeLocalDns),
    kubeletConfigParameters: kubeletParameters(
      worker.kubernetes?.kubelet ?? spec.kubernetes.kubelet,
      worker.machine.type,
      cluster.cloudProfile,
    ),
    kubeletDataVolumeName: worker.kubeletDataVolumeName,
    kubernetesVersion: version,
    sshPublicKeys: values.sshPublicKeys ?? [],
    sshAccessEnabled: spec.provider.workersSettings?.sshAccess?.enabled ?? true,
    valitailEnabled: logging,
    valiIngress: logging ? valiIngressHost(technicalId, cluster.seed.spec.ingress?.domain ?? '') : '',
    apiServerUrl: shoot.apiServerUrl,
    sysctls: worker.sysctls ?? {},
    syncJitterPeriod: seconds(shoot.maxDelay.seconds),
    preferIPv6: spec.networking?.ipFamilies?.[0] === 'IPv6',
  };
}
