/**
 * The gardener-node-agent component (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go, gate
 * on only): its unit (from api/, the same bytes `bootstrap` writes), its config and its binary from
 * the node agent image. The unit lists both files, so a new config or binary restarts the agent.
 */
import { NODE_AGENT_UNIT_CONTENT, PATH, UNIT } from '../../api/index.js';
import { type Component, MODE, NO_OUTPUT } from '../component.js';
import { nodeAgentComponentConfig, VALITAIL_TOKEN_SYNC } from './component-config.js';
import { nodeAgentConfigFile } from './config-file.js';

export const nodeAgent: Component = (ctx) => {
  if (!ctx.useGardenerNodeAgent) return NO_OUTPUT;
  const image = ctx.images['gardener-node-agent'];
  if (!image) throw new Error('the gardener-node-agent image is missing');
  const config = nodeAgentComponentConfig({
    oscSecretName: ctx.key,
    kubernetesVersion: ctx.kubernetesVersion,
    apiServerUrl: ctx.apiServerUrl,
    caBundle: ctx.caBundle,
    syncJitterPeriod: ctx.syncJitterPeriod,
    additionalTokenSyncConfigs: ctx.valitailEnabled ? [VALITAIL_TOKEN_SYNC] : [],
    identity: ctx.nodeAgentIdentity,
  });
  return {
    units: [
      {
        name: UNIT.nodeAgent,
        enable: true,
        content: NODE_AGENT_UNIT_CONTENT,
        filePaths: [PATH.nodeAgentConfig, PATH.nodeAgentBinary],
      },
    ],
    files: [
      nodeAgentConfigFile(config),
      {
        path: PATH.nodeAgentBinary,
        permissions: MODE.rwx,
        content: { imageRef: { image, filePathInImage: '/gardener-node-agent' } },
      },
    ],
  };
};
