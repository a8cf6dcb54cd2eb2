/**
 * The NodeAgentConfiguration of the Gardener v1.150.0 contract, as gardenlet writes it (gardener
 * pkg/apis v1.150.0 config/nodeagent/v1alpha1/types.go; gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go):
 * `apiServer.caFile` instead of `caBundle`, `controllers.systemdUnitCheck` (always written, `{}`
 * when unset), no `syncJitterPeriod`, no mandatory sync of a token of the agent's own. The file
 * is named after the gardenlet's version, `config-<gitVersion>.yaml`, and the agent is started with
 * `--config-dir` (gardener v1.150.0 pkg/api/config/nodeagent/v1alpha1/helper/helper.go).
 */
import { formatGoDuration } from '../duration.js';
import type { GardenerVersion } from '../gardener-version.js';
import { formatSemVer, type SemVer } from '../semver.js';
import { PATH } from '../well-known/paths.js';
import { stringifyYaml } from '../yaml/codec.js';
import {
  NODE_AGENT_CONFIG_API_VERSION,
  NODE_AGENT_CONFIG_KIND,
  type TokenSyncConfig,
} from './node-agent-configuration.js';

/** Where v1.150.0 ships the cluster CA for the agent (`ClusterCAFilePath`, mode 0640). */
export const NODE_AGENT_CLUSTER_CA_PATH = `${PATH.nodeAgentBaseDir}/cluster-ca.crt`;

/** `GetConfigFilePath`: the config file the agent of that version reads. */
export function nodeAgentConfigFilePathV150(gitVersion: GardenerVersion): string {
  return `${PATH.nodeAgentBaseDir}/config-${gitVersion}.yaml`;
}

/** What gardenlet v1.150.0 sets; everything else is Go's zero value. */
export interface NodeAgentConfigurationV150 {
  readonly apiServerUrl: string;
  readonly oscSecretName: string;
  readonly kubernetesVersion: SemVer | undefined;
  readonly tokenSyncConfigs: readonly TokenSyncConfig[];
  /** Nanoseconds; gardenlet writes 12h. */
  readonly tokenSyncPeriod: number;
  /** Only on the provision OSC's copy (`bootstrap: {}` unless a kubelet data volume is sized). */
  readonly bootstrap?: { readonly kubeletDataVolumeSize?: number };
}

/** The Go-shaped object: non-omitempty zero values present, omitempty ones left out. */
export function nodeAgentConfigurationV150ToWire(c: NodeAgentConfigurationV150): Record<string, unknown> {
  return {
    apiVersion: NODE_AGENT_CONFIG_API_VERSION,
    kind: NODE_AGENT_CONFIG_KIND,
    apiServer: { caFile: NODE_AGENT_CLUSTER_CA_PATH, server: c.apiServerUrl },
    bootstrap: c.bootstrap && {
      ...(c.bootstrap.kubeletDataVolumeSize === undefined
        ? {}
        : { kubeletDataVolumeSize: c.bootstrap.kubeletDataVolumeSize }),
    },
    clientConnection: { acceptContentTypes: '', burst: 0, contentType: '', kubeconfig: '', qps: 0 },
    controllers: {
      operatingSystemConfig: {
        kubernetesVersion: c.kubernetesVersion ? formatSemVer(c.kubernetesVersion) : null,
        secretName: c.oscSecretName,
      },
      systemdUnitCheck: {},
      token: {
        syncConfigs: c.tokenSyncConfigs.length > 0 ? c.tokenSyncConfigs.map((s) => ({ ...s })) : undefined,
        syncPeriod: formatGoDuration(c.tokenSyncPeriod),
      },
    },
    logFormat: '',
    logLevel: '',
    server: {},
  };
}

/** The bytes gardenlet v1.150.0 writes into `config-v1.150.0.yaml`. */
export function encodeNodeAgentConfigurationV150(c: NodeAgentConfigurationV150): string {
  return stringifyYaml(nodeAgentConfigurationV150ToWire(c));
}
