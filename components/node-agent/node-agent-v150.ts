/**
 * The gardener-node-agent component of the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go):
 * `config-<version>.yaml` (0600), the cluster CA as `cluster-ca.crt` (0640) and the binary, and
 * the unit started with `--config-dir`, logging to the console too; the unit lists all three
 * files, so a new config, CA or binary restarts the agent.
 */
import {
  encodeNodeAgentConfigurationV150,
  type GardenerVersion,
  NODE_AGENT_CLUSTER_CA_PATH,
  NODE_AGENT_UNIT_CONTENT_V150,
  type NodeAgentConfigurationV150,
  nodeAgentConfigFilePathV150,
  type OscFile,
  type OscUnit,
  PATH,
  UNIT,
} from '../../api/index.js';
import { b64, type ComponentOutput, MODE } from '../component.js';

/** The unit (in api/, since bootstrap writes it too and node-agent/ may not import components/). */
export { NODE_AGENT_UNIT_CONTENT_V150 };

/** `Files(config)`: the config file of the gardenlet's version. */
export function nodeAgentConfigFileV150(
  config: NodeAgentConfigurationV150,
  gitVersion: GardenerVersion,
): OscFile {
  return {
    path: nodeAgentConfigFilePathV150(gitVersion),
    permissions: MODE.secret,
    content: b64(encodeNodeAgentConfigurationV150(config)),
  };
}

export interface NodeAgentV150Input {
  readonly config: NodeAgentConfigurationV150;
  readonly gitVersion: GardenerVersion;
  /** The component context's CA bundle, as gardenlet passes it (`[]byte(ctx.CABundle)`). */
  readonly caBundle: string | undefined;
  readonly image: string;
}

export function nodeAgentV150(input: NodeAgentV150Input): ComponentOutput {
  const files: OscFile[] = [
    nodeAgentConfigFileV150(input.config, input.gitVersion),
    { path: NODE_AGENT_CLUSTER_CA_PATH, permissions: MODE.group, content: b64(input.caBundle ?? '') },
    {
      path: PATH.nodeAgentBinary,
      permissions: MODE.rwx,
      content: { imageRef: { image: input.image, filePathInImage: '/gardener-node-agent' } },
    },
  ];
  const unit: OscUnit = {
    name: UNIT.nodeAgent,
    enable: true,
    content: NODE_AGENT_UNIT_CONTENT_V150,
    filePaths: files.map((f) => f.path),
  };
  return { units: [unit], files };
}
