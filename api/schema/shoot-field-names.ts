/**
 * The JSON field names of the parts of a Shoot (core.gardener.cloud/v1beta1, Gardener v1.91.4
 * `pkg/apis/core/v1beta1/types_shoot.go`) that node configuration reads, complete as upstream has
 * them (not only the subset we model), so a field upstream knows is never called a typo. A node is
 * `{ fields }`; a field maps to its node, `'leaf'` (a value), or `'raw'` (an embedded object whose
 * fields are someone else's: providerConfig, the control-plane components we do not read).
 */
export type FieldNode = {
  readonly fields: Readonly<Record<string, FieldNode | 'leaf' | 'raw'>>;
  readonly list?: true;
};

const node = (fields: FieldNode['fields']): FieldNode => ({ fields });
const listOf = (fields: FieldNode['fields']): FieldNode => ({ fields, list: true });

const eviction = node({
  memoryAvailable: 'leaf',
  imageFSAvailable: 'leaf',
  imageFSInodesFree: 'leaf',
  nodeFSAvailable: 'leaf',
  nodeFSInodesFree: 'leaf',
});

const reserved = node({ cpu: 'leaf', memory: 'leaf', ephemeralStorage: 'leaf', pid: 'leaf' });

/** KubeletConfig, with the inlined KubernetesConfig (`featureGates`). */
export const KUBELET_CONFIG_FIELDS = node({
  featureGates: 'raw',
  cpuCFSQuota: 'leaf',
  cpuManagerPolicy: 'leaf',
  evictionHard: eviction,
  evictionMaxPodGracePeriod: 'leaf',
  evictionMinimumReclaim: eviction,
  evictionPressureTransitionPeriod: 'leaf',
  evictionSoft: eviction,
  evictionSoftGracePeriod: eviction,
  maxPods: 'leaf',
  podPidsLimit: 'leaf',
  failSwapOn: 'leaf',
  kubeReserved: reserved,
  systemReserved: reserved,
  imageGCHighThresholdPercent: 'leaf',
  imageGCLowThresholdPercent: 'leaf',
  serializeImagePulls: 'leaf',
  registryPullQPS: 'leaf',
  registryBurst: 'leaf',
  seccompDefault: 'leaf',
  containerLogMaxSize: 'leaf',
  containerLogMaxFiles: 'leaf',
  protectKernelDefaults: 'leaf',
  streamingConnectionIdleTimeout: 'leaf',
  memorySwap: node({ swapBehavior: 'leaf' }),
});

export const KUBERNETES_FIELDS = node({
  clusterAutoscaler: 'raw',
  kubeAPIServer: 'raw',
  kubeControllerManager: 'raw',
  kubeScheduler: 'raw',
  kubeProxy: node({ featureGates: 'raw', mode: 'leaf', enabled: 'leaf' }),
  kubelet: KUBELET_CONFIG_FIELDS,
  version: 'leaf',
  verticalPodAutoscaler: 'raw',
  enableStaticTokenKubeconfig: 'leaf',
});

const volume = { type: 'leaf', size: 'leaf', encrypted: 'leaf' } as const;

export const WORKER_FIELDS = node({
  annotations: 'raw',
  caBundle: 'leaf',
  cri: node({ name: 'leaf', containerRuntimes: listOf({ type: 'leaf', providerConfig: 'raw' }) }),
  kubernetes: node({ kubelet: KUBELET_CONFIG_FIELDS, version: 'leaf' }),
  labels: 'raw',
  name: 'leaf',
  machine: node({
    type: 'leaf',
    image: node({ name: 'leaf', providerConfig: 'raw', version: 'leaf' }),
    architecture: 'leaf',
  }),
  maximum: 'leaf',
  minimum: 'leaf',
  maxSurge: 'leaf',
  maxUnavailable: 'leaf',
  providerConfig: 'raw',
  taints: listOf({ key: 'leaf', value: 'leaf', effect: 'leaf', timeAdded: 'leaf' }),
  volume: node({ name: 'leaf', ...volume }),
  dataVolumes: listOf({ name: 'leaf', ...volume }),
  kubeletDataVolumeName: 'leaf',
  zones: 'leaf',
  systemComponents: node({ allow: 'leaf' }),
  machineControllerManager: node({
    machineDrainTimeout: 'leaf',
    machineHealthTimeout: 'leaf',
    machineCreationTimeout: 'leaf',
    maxEvictRetries: 'leaf',
    nodeConditions: 'leaf',
  }),
  sysctls: 'raw',
  clusterAutoscaler: node({
    scaleDownUtilizationThreshold: 'leaf',
    scaleDownGpuUtilizationThreshold: 'leaf',
    scaleDownUnneededTime: 'leaf',
    scaleDownUnreadyTime: 'leaf',
    maxNodeProvisionTime: 'leaf',
  }),
});

export const PROVIDER_FIELDS = node({
  type: 'leaf',
  controlPlaneConfig: 'raw',
  infrastructureConfig: 'raw',
  workers: { ...WORKER_FIELDS, list: true },
  workersSettings: node({ sshAccess: node({ enabled: 'leaf' }) }),
});

/** Where in a Shoot the checked parts are. */
export const CHECKED_SHOOT_PARTS: readonly { readonly path: readonly string[]; readonly node: FieldNode }[] =
  [
    { path: ['spec', 'kubernetes'], node: KUBERNETES_FIELDS },
    { path: ['spec', 'provider'], node: PROVIDER_FIELDS },
  ];
