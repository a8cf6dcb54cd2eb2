/**
 * What every OSC component is: a pure function of typed values that yields systemd units and files,
 * in the order they must appear in the OSC (the order ends up in `osc.yaml` and so in its
 * checksum). The context is what gardenlet's components receive (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go).
 */
import type { NodeAgentIdentityMode, OscFile, OscUnit, SemVer } from '../api/index.js';

export interface KubeletConfigParameters {
  containerLogMaxFiles?: number;
  containerLogMaxSize?: string;
  cpuCFSQuota?: boolean;
  cpuManagerPolicy?: string;
  evictionHard?: Record<string, string>;
  evictionSoft?: Record<string, string>;
  evictionSoftGracePeriod?: Record<string, string>;
  evictionMinimumReclaim?: Record<string, string>;
  evictionMaxPodGracePeriod?: number;
  evictionPressureTransitionPeriod?: string;
  failSwapOn?: boolean;
  featureGates?: Record<string, boolean>;
  imageGCHighThresholdPercent?: number;
  imageGCLowThresholdPercent?: number;
  kubeReserved?: Record<string, string>;
  systemReserved?: Record<string, string>;
  maxPods?: number;
  podPidsLimit?: number;
  protectKernelDefaults?: boolean;
  seccompDefault?: boolean;
  serializeImagePulls?: boolean;
  registryPullQPS?: number;
  registryBurst?: number;
  streamingConnectionIdleTimeout?: string;
  memorySwap?: { swapBehavior?: string };
}

export interface ComponentContext {
  /** The OSC secret name of the pool: `gardener-node-agent-<pool>-<hash>` (or the legacy key). */
  readonly key: string;
  readonly useGardenerNodeAgent: boolean;
  /** How the node agents authenticate: their own per-node identity, or the shared ServiceAccount. */
  readonly nodeAgentIdentity: NodeAgentIdentityMode;
  readonly workerPoolName: string;
  /** Cloud profile CA + cluster CA (+ pool CA), or undefined when there is none. */
  readonly caBundle: string | undefined;
  /** The cluster CA (`ca` secret, bundle.crt). */
  readonly clusterCaBundle: string;
  readonly kubeletCaBundle: string;
  readonly clusterDnsAddress: string;
  readonly clusterDomain: string;
  /** `containerd` unless the pool names another CRI. */
  readonly criName: string;
  /** Image name (`hyperkube`, `pause-container`, `valitail`, `gardener-node-agent`) to image reference. */
  readonly images: Readonly<Record<string, string>>;
  readonly nodeLabels: Readonly<Record<string, string>>;
  readonly kubeletConfigParameters: KubeletConfigParameters;
  readonly kubeletDataVolumeName: string | undefined;
  readonly kubernetesVersion: SemVer;
  readonly sshPublicKeys: readonly string[];
  readonly sshAccessEnabled: boolean;
  readonly valitailEnabled: boolean;
  /** Host name of the Vali ingress (valitail's push target); empty when logging is off. */
  readonly valiIngress: string;
  readonly apiServerUrl: string;
  readonly sysctls: Readonly<Record<string, string>>;
  /** Nanoseconds; the per-shoot max reconciliation delay. */
  readonly syncJitterPeriod: number;
  readonly preferIPv6: boolean;
}

export interface ComponentOutput {
  readonly units: OscUnit[];
  readonly files: OscFile[];
}

export type Component = (ctx: ComponentContext) => ComponentOutput;

/** Nothing; frozen all the way down, since every component that returns it shares it. */
export const NO_OUTPUT: ComponentOutput = Object.freeze({
  units: Object.freeze([]),
  files: Object.freeze([]),
}) as unknown as ComponentOutput;

/** `inline: {encoding: b64}` content, as gardenlet writes most files. */
export function b64(text: string): { inline: { encoding: 'b64'; data: string } } {
  return { inline: { encoding: 'b64', data: Buffer.from(text, 'utf8').toString('base64') } };
}

/** Inline content without encoding (plain text in the OSC). */
export function plain(text: string): { inline: { encoding: ''; data: string } } {
  return { inline: { encoding: '', data: text } };
}

export const MODE = { rw: 0o644, rwx: 0o755, secret: 0o600, group: 0o640, script: 0o744 } as const;
