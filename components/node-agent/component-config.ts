/**
 * The node agent's configuration as gardenlet writes it (`ComponentConfig`, gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go):
 * everything else zero-valued, so the node agent's defaults apply on the node. With per-node
 * identities it names the identity kubeconfig instead of syncing the shared token.
 */
import {
  NAME,
  NODE_AGENT_IDENTITY,
  NODE_AGENT_TOKEN_SYNC,
  type NodeAgentConfiguration,
  type NodeAgentIdentityMode,
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
  /**
   * `node`: the agent authenticates with its own client certificate (the kubeconfig it obtains at
   * `credentials/kubeconfig`) and syncs no token of its own; `serviceAccount`: as v1.91.
   */
  readonly identity: NodeAgentIdentityMode;
}

export const VALITAIL_TOKEN_SYNC: TokenSyncConfig = {
  secretName: NAME.valitail,
  path: PATH.valitailAuthToken,
};

export function nodeAgentComponentConfig(input: ComponentConfigInput): NodeAgentConfiguration {
  const perNode = input.identity === NODE_AGENT_IDENTITY.node;
  return {
    clientConnection: perNode ? { kubeconfig: PATH.nodeAgentKubeconfig } : {},
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
        syncConfigs: [
          ...(perNode ? [] : [{ ...NODE_AGENT_TOKEN_SYNC }]),
          ...(input.additionalTokenSyncConfigs ?? []),
        ],
        syncPeriod: parseGoDuration('12h'),
      },
    },
  };
}
