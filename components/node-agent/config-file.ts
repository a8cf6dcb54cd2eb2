/**
 * The config file the node agent reads (`Files(config)` of gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/nodeagent/component.go): 0600,
 * base64 YAML.
 */
import {
  encodeNodeAgentConfiguration,
  type NodeAgentConfiguration,
  type OscFile,
  PATH,
} from '../../api/index.js';
import { b64, MODE } from '../component.js';

export function nodeAgentConfigFile(config: NodeAgentConfiguration): OscFile {
  return {
    path: PATH.nodeAgentConfig,
    permissions: MODE.secret,
    content: b64(encodeNodeAgentConfiguration(config)),
  };
}
