/**
 * The kubelet's config file of the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/kubelet/config.go), written
 * as the v1.91.4 one (kubelet-configuration.ts) plus what changed since:
 * - `cgroupDriver: systemd` for every version (v1.141.0; the containerd config the agent writes
 *   from `criConfig.cgroupDriver` matches it);
 * - `protectKernelDefaults` true unless the shoot says otherwise, for every version, and
 *   `streamingConnectionIdleTimeout` 5m (the 1.25 branches are gone);
 * - every cluster DNS address (dual stack), the pool's taints before the critical-components
 *   taint, gardener's TLS cipher suites (gardener v1.150.0 pkg/utils/kubernetes/tls_cipher_suites.go);
 * - the shoot fields added since v1.91 passed through, and the static pod path of control-plane pools;
 * - the zero values k8s.io/kubelet v0.36.4 and k8s.io/component-base v0.36.4 write
 *   (`crashLoopBackOff: {}`, the text logging options).
 */
import { formatGoDuration, parseGoDuration, type SemVer } from '../../api/index.js';
import type { KubeletConfigParameters } from '../component.js';
import { kubeletConfiguration } from './kubelet-configuration.js';

/** The kubelet settings of a shoot or worker that v1.150.0 reads beyond v1.91.4's. */
export interface KubeletConfigParametersV150 extends KubeletConfigParameters {
  maxParallelImagePulls?: number;
  singleProcessOOMKill?: boolean;
  imagePullCredentialsVerificationPolicy?: string;
  preloadedImagesVerificationAllowlist?: string[];
  /** Control-plane pools (gardenadm): the kubelet runs the static pods of /etc/kubernetes/manifests. */
  withStaticPodPath?: boolean;
}

/** A corev1.Taint as Go writes it (`value` and `timeAdded` omitted when empty). */
export interface KubeletTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

export interface KubeletConfigurationV150Input {
  readonly params: KubeletConfigParametersV150;
  readonly clusterDnsAddresses: readonly string[];
  readonly clusterDomain: string;
  /** The worker pool's taints. */
  readonly taints: readonly KubeletTaint[];
  readonly kubernetesVersion: SemVer;
}

/** gardener v1.150.0 pkg/utils/kubernetes/tls_cipher_suites.go, in its order. */
export const KUBELET_TLS_CIPHER_SUITES = [
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
] as const;

const CRITICAL_COMPONENTS_NOT_READY: KubeletTaint = {
  key: 'node.gardener.cloud/critical-components-not-ready',
  effect: 'NoSchedule',
};

const STATIC_POD_PATH = '/etc/kubernetes/manifests';

const taint = (t: KubeletTaint) => ({ effect: t.effect, key: t.key, ...(t.value ? { value: t.value } : {}) });

export function kubeletConfigurationV150(input: KubeletConfigurationV150Input): Record<string, unknown> {
  const p = input.params;
  const base = kubeletConfiguration({
    params: p,
    clusterDnsAddress: input.clusterDnsAddresses[0] ?? '',
    clusterDomain: input.clusterDomain,
    kubernetesVersion: input.kubernetesVersion,
  });
  return {
    ...base,
    cgroupDriver: 'systemd',
    clusterDNS: input.clusterDnsAddresses.length > 0 ? [...input.clusterDnsAddresses] : undefined,
    crashLoopBackOff: {},
    imagePullCredentialsVerificationPolicy: p.imagePullCredentialsVerificationPolicy || undefined,
    logging: {
      flushFrequency: 0,
      options: { json: { infoBufferSize: '0' }, text: { infoBufferSize: '0' } },
      verbosity: 0,
    },
    maxParallelImagePulls: p.maxParallelImagePulls,
    preloadedImagesVerificationAllowlist:
      p.preloadedImagesVerificationAllowlist && p.preloadedImagesVerificationAllowlist.length > 0
        ? p.preloadedImagesVerificationAllowlist
        : undefined,
    protectKernelDefaults: (p.protectKernelDefaults ?? true) || undefined,
    registerWithTaints: [...input.taints, CRITICAL_COMPONENTS_NOT_READY].map(taint),
    singleProcessOOMKill: p.singleProcessOOMKill,
    staticPodPath: p.withStaticPodPath ? STATIC_POD_PATH : undefined,
    streamingConnectionIdleTimeout: formatGoDuration(
      parseGoDuration(p.streamingConnectionIdleTimeout ?? '5m'),
    ),
    tlsCipherSuites: [...KUBELET_TLS_CIPHER_SUITES],
  };
}
