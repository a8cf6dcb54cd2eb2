/** Object names, unit names, data keys and fixed values of the contract. */
export const UNIT = {
  nodeAgent: 'gardener-node-agent.service',
  nodeInit: 'gardener-node-init.service',
  kubelet: 'kubelet.service',
  containerd: 'containerd.service',
  downloader: 'cloud-config-downloader.service',
} as const;

export const NAMESPACE_KUBE_SYSTEM = 'kube-system';

export const NAME = {
  nodeAgent: 'gardener-node-agent',
  valitail: 'gardener-valitail',
  /** The v1.150.0 log shipper's ServiceAccount and token secret in the shoot. */
  openTelemetryCollector: 'gardener-opentelemetry-collector',
  downloader: 'cloud-config-downloader',
  nodeAgentLeasePrefix: 'gardener-node-agent-',
  shootAccessPrefix: 'shoot-access-',
  managedResourceNodeAgent: 'shoot-gardener-node-agent',
  managedResourceLegacy: 'shoot-cloud-config-execution',
  managedResourceSecretPrefix: 'managedresource-',
  rbacLogicalNodeAgent: 'shoot-gardener-node-agent-rbac',
  rbacLogicalLegacy: 'shoot-cloud-config-rbac',
  keyPrefixNodeAgent: 'gardener-node-agent',
  keyPrefixLegacy: 'cloud-config',
  shootInternalAccessSecret: 'gardener-internal',
  shootAccessSecret: 'gardener',
} as const;

export const DATA_KEY = {
  osc: 'osc.yaml',
  cloudConfig: 'cloud_config',
  token: 'token',
  script: 'script',
  bundle: 'bundle.crt',
  sshPublicKey: 'id_rsa.pub',
  kubeconfig: 'kubeconfig',
} as const;

export const FEATURE_GATE_USE_GARDENER_NODE_AGENT = 'UseGardenerNodeAgent';
/** gardenlet v1.150.0's gate of the OpenTelemetry Collector log shipper (gardener v1.150.0 pkg/features). */
export const FEATURE_GATE_OPEN_TELEMETRY_COLLECTOR = 'OpenTelemetryCollector';
export const BOOTSTRAP_TOKEN_PLACEHOLDER = '<<BOOTSTRAP_TOKEN>>';
export const ACCESS_TOKEN_EXPIRATION = '720h';

export const LEASE_DURATION_SECONDS = 40;

export function nodeAgentLeaseName(nodeName: string): string {
  return `${NAME.nodeAgentLeasePrefix}${nodeName}`;
}
