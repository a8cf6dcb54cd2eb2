/**
 * The kubelet's config file (KubeletConfiguration, kubelet.config.k8s.io/v1beta1) as gardenlet
 * renders it: its defaults and fixed values (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/kubelet/config.go), serialised
 * with k8s.io/kubelet's JSON field set (non-omitempty zero values included), so the bytes equal
 * upstream's (S-TV-16).
 */
import { formatGoDuration, isAtLeastMinor, PATH, parseGoDuration, type SemVer } from '../../api/index.js';
import type { KubeletConfigParameters } from '../component.js';

export interface KubeletConfigurationInput {
  readonly params: KubeletConfigParameters;
  readonly clusterDnsAddress: string;
  readonly clusterDomain: string;
  readonly kubernetesVersion: SemVer;
}

const EVICTION_SIGNALS = [
  'memory.available',
  'imagefs.available',
  'imagefs.inodesFree',
  'nodefs.available',
  'nodefs.inodesFree',
];

function withDefaults(
  given: Readonly<Record<string, string>> | undefined,
  defaults: Record<string, string>,
): Record<string, string> {
  return { ...defaults, ...given };
}

function fillAll(
  given: Readonly<Record<string, string>> | undefined,
  value: string,
  memory = value,
): Record<string, string> {
  const defaults: Record<string, string> = {};
  for (const s of EVICTION_SIGNALS) defaults[s] = s === 'memory.available' ? memory : value;
  return withDefaults(given, defaults);
}

/** A duration as Go writes a metav1.Duration; input is anything time.ParseDuration accepts. */
const d = (text: string) => formatGoDuration(parseGoDuration(text));

export function kubeletConfiguration(input: KubeletConfigurationInput): Record<string, unknown> {
  const p = input.params;
  const v = input.kubernetesVersion;
  const protectKernelDefaults = p.protectKernelDefaults ?? isAtLeastMinor(v, 1, 26);
  const cgroupDriver = p.featureGates?.KubeletCgroupDriverFromCRI ? undefined : 'cgroupfs';
  return {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    authentication: {
      anonymous: { enabled: false },
      webhook: { cacheTTL: '2m0s', enabled: true },
      x509: { clientCAFile: PATH.kubeletCaBundle },
    },
    authorization: { mode: 'Webhook', webhook: { cacheAuthorizedTTL: '5m0s', cacheUnauthorizedTTL: '30s' } },
    cgroupDriver,
    cgroupRoot: '/',
    cgroupsPerQOS: true,
    clusterDNS: [input.clusterDnsAddress],
    clusterDomain: input.clusterDomain || undefined,
    containerLogMaxFiles: p.containerLogMaxFiles,
    containerLogMaxSize: p.containerLogMaxSize ?? '100Mi',
    containerRuntimeEndpoint: '',
    cpuCFSQuota: p.cpuCFSQuota ?? true,
    cpuManagerPolicy: p.cpuManagerPolicy ?? 'none',
    cpuManagerReconcilePeriod: '10s',
    enableControllerAttachDetach: true,
    enableDebuggingHandlers: true,
    enableServer: true,
    enforceNodeAllocatable: ['pods'],
    eventBurst: 50,
    eventRecordQPS: 50,
    evictionHard: withDefaults(p.evictionHard, {
      'memory.available': '100Mi',
      'imagefs.available': '5%',
      'imagefs.inodesFree': '5%',
      'nodefs.available': '5%',
      'nodefs.inodesFree': '5%',
    }),
    evictionMaxPodGracePeriod: p.evictionMaxPodGracePeriod ?? 90,
    evictionMinimumReclaim: fillAll(p.evictionMinimumReclaim, '0Mi'),
    evictionPressureTransitionPeriod: d(p.evictionPressureTransitionPeriod ?? '4m'),
    evictionSoft: fillAll(p.evictionSoft, '10%', '200Mi'),
    evictionSoftGracePeriod: Object.fromEntries(
      Object.entries(fillAll(p.evictionSoftGracePeriod, '1m30s')).map(([k, x]) => [k, d(x)]),
    ),
    failSwapOn: p.failSwapOn ?? true,
    featureGates: p.featureGates && Object.keys(p.featureGates).length > 0 ? p.featureGates : undefined,
    fileCheckFrequency: '20s',
    hairpinMode: 'promiscuous-bridge',
    httpCheckFrequency: '20s',
    imageGCHighThresholdPercent: p.imageGCHighThresholdPercent ?? 50,
    imageGCLowThresholdPercent: p.imageGCLowThresholdPercent ?? 40,
    imageMaximumGCAge: '0s',
    imageMinimumGCAge: '2m0s',
    kubeAPIBurst: 50,
    kubeAPIQPS: 50,
    kubeReserved: withDefaults(p.kubeReserved, { cpu: '80m', memory: '1Gi' }),
    logging: { flushFrequency: 0, options: { json: { infoBufferSize: '0' } }, verbosity: 0 },
    maxOpenFiles: 1000000,
    maxPods: p.maxPods ?? 110,
    memorySwap: p.memorySwap?.swapBehavior ? { swapBehavior: p.memorySwap.swapBehavior } : {},
    nodeStatusReportFrequency: '0s',
    nodeStatusUpdateFrequency: '0s',
    podPidsLimit: p.podPidsLimit,
    protectKernelDefaults: protectKernelDefaults || undefined,
    registerWithTaints: [{ effect: 'NoSchedule', key: 'node.gardener.cloud/critical-components-not-ready' }],
    registryBurst: p.registryBurst || undefined,
    registryPullQPS: p.registryPullQPS,
    resolvConf: '/etc/resolv.conf',
    rotateCertificates: true,
    runtimeRequestTimeout: '2m0s',
    seccompDefault: p.seccompDefault,
    serializeImagePulls: p.serializeImagePulls ?? true,
    serverTLSBootstrap: true,
    shutdownGracePeriod: '0s',
    shutdownGracePeriodCriticalPods: '0s',
    streamingConnectionIdleTimeout: d(
      p.streamingConnectionIdleTimeout ?? (isAtLeastMinor(v, 1, 26) ? '5m' : '4h'),
    ),
    syncFrequency: '1m0s',
    systemReserved:
      p.systemReserved && Object.keys(p.systemReserved).length > 0 ? p.systemReserved : undefined,
    volumePluginDir: PATH.kubeletVolumePluginDir,
    volumeStatsAggPeriod: '1m0s',
  };
}
