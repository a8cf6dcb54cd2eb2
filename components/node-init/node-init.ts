/**
 * What a new machine runs first (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/nodeinit/nodeinit.go):
 * `gardener-node-init.service`, its script, the bootstrap token placeholder that
 * machine-controller-manager replaces per machine, and the node agent's config with a `bootstrap`
 * section (the kubelet data volume size, if the pool has one).
 */
import {
  BOOTSTRAP_TOKEN_PLACEHOLDER,
  type NodeAgentConfiguration,
  type OscFile,
  type OscUnit,
  PATH,
  UNIT,
} from '../../api/index.js';
import { b64, type ComponentOutput, MODE, plain } from '../component.js';
import { nodeAgentConfigFile } from '../node-agent/config-file.js';
import { nodeInitScript } from './init-script.js';
import { QuantityError, quantityAsInt64 } from './quantity.js';

export const NODE_INIT_UNIT_CONTENT = `[Unit]
Description=Downloads the gardener-node-agent binary from the container registry and bootstraps it.
After=network-online.target
Wants=network-online.target
[Service]
Type=oneshot
Restart=on-failure
RestartSec=5
StartLimitBurst=0
EnvironmentFile=/etc/environment
ExecStart=${PATH.nodeAgentInitScript}
[Install]
WantedBy=multi-user.target`;

export interface NodeInitWorker {
  readonly name: string;
  readonly dataVolumes?: readonly { name: string; size: string }[];
  readonly kubeletDataVolumeName?: string;
}

export class NodeInitError extends Error {}

/** The kubelet data volume size in bytes, or undefined when the pool has none. */
export function kubeletDataVolumeSize(worker: NodeInitWorker): number | undefined {
  if (!worker.dataVolumes?.length || worker.kubeletDataVolumeName === undefined) return undefined;
  const missing = `failed computing bootstrap configuration: failed getting kubelet data volume size: failed finding data volume for kubelet in worker with name "${worker.name}"`;
  const volume = worker.dataVolumes.find((v) => v.name === worker.kubeletDataVolumeName);
  if (!volume) throw new NodeInitError(missing);
  let size: number | undefined;
  try {
    size = quantityAsInt64(volume.size);
  } catch (e) {
    if (e instanceof QuantityError)
      throw new NodeInitError(
        `failed parsing kubelet data volume size "${volume.size}" as quantity: ${e.message}`,
      );
    throw e;
  }
  if (size === undefined) throw new NodeInitError(missing);
  return size;
}

export function nodeInit(
  worker: NodeInitWorker,
  nodeAgentImage: string,
  config: NodeAgentConfiguration,
): ComponentOutput {
  const size = kubeletDataVolumeSize(worker);
  const provisionConfig: NodeAgentConfiguration = {
    ...structuredClone(config),
    bootstrap: size === undefined ? {} : { kubeletDataVolumeSize: size },
  };
  const units: OscUnit[] = [
    {
      name: UNIT.nodeInit,
      command: 'start',
      enable: true,
      content: NODE_INIT_UNIT_CONTENT,
      filePaths: [PATH.nodeAgentInitScript],
    },
  ];
  const files: OscFile[] = [
    {
      path: PATH.nodeAgentBootstrapToken,
      permissions: MODE.group,
      content: { ...plain(BOOTSTRAP_TOKEN_PLACEHOLDER), transmitUnencoded: true },
    },
    { path: PATH.nodeAgentInitScript, permissions: MODE.rwx, content: b64(nodeInitScript(nodeAgentImage)) },
    nodeAgentConfigFile(provisionConfig),
  ];
  return { units, files };
}
