/**
 * The node agent's configuration as gardenlet writes it (`ComponentConfig`, seed-side §5.1):
 * everything else zero-valued, so the node agent's defaults apply on the node.
 */
import {
  NAME,
  NODE_AGENT_TOKEN_SYNC,
  type NodeAgentConfiguration,
  PATH,
  parseGoDuration,
  type SemVer,
  type TokenSyncConfig,
} from '../../api/index.js';

export interface ComponentConfigInput {
  readonly oscSecretName: string;
  readonly kubernetesVersion: SemVer | undefined;
  readonly apiServerUrl: string;
  /** The CA bundle in PEM; undefined writes `caBundle: null`. */
  readonly caBundle: string | undefined;
  /** Nanoseconds. */
  readonly syncJitterPeriod: number;
  readonly additionalTokenSyncConfigs?: readonly TokenSyncConfig[];
}

export const VALITAIL_TOKEN_SYNC: TokenSyncConfig = {
  secretName: NAME.valitail,
  path: PATH.valitailAuthToken,
};

export function nodeAgentComponentConfig(input: ComponentConfigInput): NodeAgentConfiguration {
  return {
    clientConnection: {},
    server: {},
    apiServer: {
      server: input.apiServerUrl,
      caBundle: input.caBundle === undefined ? null : Buffer.from(input.caBundle, 'utf8').toString('base64'),
    },
    controllers: {
      operatingSystemConfig: {
        secretName: input.oscSecretName,
        kubernetesVersion: input.kubernetesVersion ?? null,
        syncJitterPeriod: input.syncJitterPeriod,
      },
      token: {
        syncConfigs: [{ ...NODE_AGENT_TOKEN_SYNC }, ...(input.additionalTokenSyncConfigs ?? [])],
        syncPeriod: parseGoDuration('12h'),
      },
    },
  };
}
