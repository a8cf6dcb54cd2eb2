/**
 * NodeAgentConfiguration (nodeagent.config.gardener.cloud/v1alpha1), gardener v1.91.4
 * pkg/nodeagent/apis/config/v1alpha1/types.go and v1.150.0's additions: the typed configuration
 * and the constants its defaulting and validation use. Decoding and encoding:
 * node-agent-configuration.ts; validation: node-agent-configuration-validation.ts.
 */
import { seconds } from '../duration.js';
import type { SemVer } from '../semver.js';
import { NAME } from '../well-known/names.js';
import { PATH } from '../well-known/paths.js';
export const NODE_AGENT_CONFIG_API_VERSION = 'nodeagent.config.gardener.cloud/v1alpha1';
export const NODE_AGENT_CONFIG_KIND = 'NodeAgentConfiguration';
export const LOG_LEVELS = ['debug', 'info', 'error'] as const;
export const LOG_FORMATS = ['json', 'text'] as const;

export const NODE_AGENT_DEFAULTS = {
  logLevel: 'info',
  logFormat: 'json',
  contentType: 'application/vnd.kubernetes.protobuf',
  qps: 50,
  burst: 100,
  healthProbesPort: 2751,
  metricsPort: 2752,
  oscSyncPeriod: seconds(600),
  oscSyncJitterPeriod: seconds(300),
  tokenSyncPeriod: seconds(3600),
} as const;

/** What v1.150.0 defaults beyond v1.91.4's (gardener v1.150.0 pkg/apis/config/nodeagent/v1alpha1/defaults.go). */
export const NODE_AGENT_DEFAULTS_V150 = {
  systemdUnitCheckSyncPeriod: seconds(60),
  systemdUnitCheckStuckThreshold: seconds(300),
} as const;

export const MIN_STUCK_THRESHOLD = seconds(30);

export const MIN_SYNC_PERIOD = seconds(15);

/** The token sync every v1.91 configuration must contain: the agent's own access token. */
export const NODE_AGENT_TOKEN_SYNC = { secretName: NAME.nodeAgent, path: PATH.nodeAgentToken } as const;

export interface ServerEndpoint {
  bindAddress: string;
  port: number;
}

export interface TokenSyncConfig {
  secretName: string;
  path: string;
}

/** The typed configuration. Optional fields are Go's nil/zero values; durations are nanoseconds. */
export interface NodeAgentConfiguration {
  clientConnection: {
    kubeconfig?: string;
    acceptContentTypes?: string;
    contentType?: string;
    qps?: number;
    burst?: number;
  };
  logLevel?: string;
  logFormat?: string;
  server: { healthProbes?: ServerEndpoint; metrics?: ServerEndpoint };
  debugging?: { enableProfiling?: boolean; enableContentionProfiling?: boolean };
  featureGates?: Record<string, boolean>;
  apiServer: {
    server?: string;
    /** base64 of the PEM bundle (the v1.91.4 contract) */
    caBundle?: string | null;
    /** The CA bundle's path on the node (the v1.150.0 contract) */
    caFile?: string;
  };
  bootstrap?: { kubeletDataVolumeSize?: number };
  controllers: {
    operatingSystemConfig: {
      syncPeriod?: number;
      syncJitterPeriod?: number;
      secretName?: string;
      kubernetesVersion?: SemVer | null;
    };
    token: { syncConfigs?: TokenSyncConfig[]; syncPeriod?: number };
    /** The v1.150.0 contract's `SystemdUnitsReady` check; nanoseconds. */
    systemdUnitCheck?: { syncPeriod?: number; stuckThreshold?: number };
  };
}
