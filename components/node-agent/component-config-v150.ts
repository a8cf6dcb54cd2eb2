/**
 * The node agent's configuration as gardenlet v1.150.0 builds it (`ComponentConfig` and the token
 * syncs of `Config` in gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go): the
 * agent syncs only the log shipper's token, the OpenTelemetry Collector's while its feature gate
 * is on (the default), else valitail's; it authenticates with its own certificate.
 */
import {
  NAME,
  type NodeAgentConfigurationV150,
  PATH,
  parseGoDuration,
  type SemVer,
  type TokenSyncConfig,
} from '../../api/index.js';

/** The OpenTelemetry Collector's token (gardener v1.150.0 …/components/opentelemetrycollector). */
export const OPENTELEMETRY_COLLECTOR_TOKEN_SYNC: TokenSyncConfig = {
  secretName: 'gardener-opentelemetry-collector',
  path: '/var/lib/opentelemetry-collector/auth-token',
};

export const VALITAIL_TOKEN_SYNC_V150: TokenSyncConfig = {
  secretName: NAME.valitail,
  path: PATH.valitailAuthToken,
};

/** Which log shipper runs on the nodes: gardenlet's `OpenTelemetryCollector` gate decides. */
export type LogShipper = 'opentelemetry-collector' | 'valitail' | 'none';

export interface ComponentConfigV150Input {
  readonly oscSecretName: string;
  readonly kubernetesVersion: SemVer | undefined;
  readonly apiServerUrl: string;
  readonly logShipper: LogShipper;
}

export function logShipperTokenSyncs(logShipper: LogShipper): TokenSyncConfig[] {
  if (logShipper === 'opentelemetry-collector') return [{ ...OPENTELEMETRY_COLLECTOR_TOKEN_SYNC }];
  if (logShipper === 'valitail') return [{ ...VALITAIL_TOKEN_SYNC_V150 }];
  return [];
}

/** The reconcile OSC's copy (with the log shipper's token). */
export function nodeAgentComponentConfigV150(input: ComponentConfigV150Input): NodeAgentConfigurationV150 {
  return {
    apiServerUrl: input.apiServerUrl,
    oscSecretName: input.oscSecretName,
    kubernetesVersion: input.kubernetesVersion,
    tokenSyncConfigs: logShipperTokenSyncs(input.logShipper),
    tokenSyncPeriod: parseGoDuration('12h'),
  };
}

/** The provision OSC's copy: no token syncs, and the bootstrap settings (gardener v1.150.0 …/nodeinit). */
export function nodeInitComponentConfigV150(
  input: Omit<ComponentConfigV150Input, 'logShipper'>,
  kubeletDataVolumeSize?: number,
): NodeAgentConfigurationV150 {
  return {
    ...nodeAgentComponentConfigV150({ ...input, logShipper: 'none' }),
    bootstrap: kubeletDataVolumeSize === undefined ? {} : { kubeletDataVolumeSize },
  };
}
