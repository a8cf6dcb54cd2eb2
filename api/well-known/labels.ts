/**
 * Label keys and values of the contract (gardener v1.91.4
 * pkg/apis/core/v1beta1/constants/types_constants.go, pkg/utils/gardener/shoot.go,
 * pkg/nodeagent/apis/config/v1alpha1/types.go).
 */
export const LABEL = {
  workerPool: 'worker.gardener.cloud/pool',
  kubernetesVersion: 'worker.gardener.cloud/kubernetes-version',
  criName: 'worker.gardener.cloud/cri-name',
  systemComponents: 'worker.gardener.cloud/system-components',
  workerGroupLegacy: 'worker.garden.sapcloud.io/group',
  nodeRole: 'node.kubernetes.io/role',
  architecture: 'kubernetes.io/arch',
  hostname: 'kubernetes.io/hostname',
  zone: 'topology.kubernetes.io/zone',
  nodeLocalDnsEnabled: 'networking.gardener.cloud/node-local-dns-enabled',
  containerRuntimePrefix: 'containerruntime.worker.gardener.cloud/',
  gardenerRole: 'gardener.cloud/role',
  managedResource: 'managed-resource',
  garbageCollectableReference: 'resources.gardener.cloud/garbage-collectable-reference',
  tokenRequestorPurpose: 'resources.gardener.cloud/purpose',
  resourceClass: 'resources.gardener.cloud/class',
  managedBy: 'resources.gardener.cloud/managed-by',
  origin: 'origin',
  noCleanup: 'shoot.gardener.cloud/no-cleanup',
  secretsManagedBy: 'managed-by',
  secretsManagerIdentity: 'manager-identity',
  secretsBundleFor: 'bundle-for',
  secretsName: 'name',
  /** Set by gardenlet/MCM from v1.96 on; read by later agents. */
  nodeAgentSecretName: 'worker.gardener.cloud/gardener-node-agent-secret-name',
} as const;

export const LABEL_VALUE = {
  roleOperatingSystemConfig: 'operating-system-config',
  roleCloudConfig: 'cloud-config',
  /** Ours: marks access-token secrets in the shoot (no upstream equivalent, docs/compatibility.md). */
  roleAccessToken: 'access-token',
  purposeTokenRequestor: 'token-requestor',
  classShoot: 'shoot',
  originGardener: 'gardener',
  secretsManager: 'secrets-manager',
  gardenlet: 'gardenlet',
  bundleForCa: 'ca',
  bundleForKubeletCa: 'ca-kubelet',
  sshKeypair: 'ssh-keypair',
  nodeRoleNode: 'node',
} as const;
