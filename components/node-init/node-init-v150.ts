/**
 * The provision OSC's node init in the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/nodeinit/nodeinit.go and
 * templates/scripts/init.tpl.sh): `gardener-node-init.service` (needs containerd, logs to the
 * console), then `cluster-ca.crt`, the bootstrap token, `init.sh`, `machine-name` and the node
 * agent's `config-<version>.yaml` with its bootstrap settings. init.sh is rendered with
 * text/template (no escaping), pulls with `--skip-metadata` on containerd ≥ 2, falls back to the
 * ko binary path and bootstraps with `--config-dir`. A registry CA (which adds a CA fetch to
 * init.sh and `update-local-ca-certificates.sh`) is not rendered yet.
 */
import {
  BOOTSTRAP_TOKEN_PLACEHOLDER,
  type GardenerVersion,
  NODE_AGENT_CLUSTER_CA_PATH,
  type NodeAgentConfigurationV150,
  type OscFile,
  type OscUnit,
  PATH,
  UNIT,
} from '../../api/index.js';
import { b64, type ComponentOutput, MODE, plain } from '../component.js';
import { nodeAgentConfigFileV150 } from '../node-agent/node-agent-v150.js';

/** machine-controller-manager replaces it with the Machine's name when it creates the machine. */
export const MACHINE_NAME_PLACEHOLDER = '<<MACHINE_NAME>>';
export const MACHINE_NAME_PATH = `${PATH.nodeAgentBaseDir}/machine-name`;

export const NODE_INIT_UNIT_CONTENT_V150 = `[Unit]
Description=Downloads the gardener-node-agent binary from the container registry and bootstraps it.
Requires=containerd.service
After=containerd.service
After=network-online.target
Wants=network-online.target
[Service]
Type=oneshot
Restart=on-failure
RestartSec=5
StartLimitBurst=0
EnvironmentFile=/etc/environment
ExecStart=${PATH.nodeAgentInitScript}
StandardOutput=journal+console
StandardError=journal+console
[Install]
WantedBy=multi-user.target`;

/** init.tpl.sh executed for the node agent without a registry CA; the image is inserted as is. */
export function nodeInitScriptV150(image: string): string {
  const bin = PATH.nodeAgentBinary.slice(0, PATH.nodeAgentBinary.lastIndexOf('/'));
  return `#!/usr/bin/env bash

set -o errexit
set -o nounset
set -o pipefail

image="${image}"

echo "> Prepare temporary directory for image pull and mount"
tmp_dir="$(mktemp -d)"
unmount() {
  ctr images unmount "$tmp_dir" && rm -rf "$tmp_dir"
}
trap unmount EXIT

echo "> Pull gardener-node-agent image and mount it to the temporary directory"
CTR_MAJOR=$(ctr version | grep Version | tail -n1 | awk '{print $2}' | cut -d '.' -f 1 | sed 's/[a-zA-Z]//g')
CTR_EXTRA_ARGS=""
if [ "$CTR_MAJOR" -gt 1 ]; then
    CTR_EXTRA_ARGS="--skip-metadata"
fi
ctr images pull $CTR_EXTRA_ARGS --hosts-dir "/etc/containerd/certs.d" "$image"
ctr images mount "$image" "$tmp_dir"

echo "> Copy gardener-node-agent binary to host (${bin}) and make it executable"
mkdir -p "${bin}"
cp -f "$tmp_dir/gardener-node-agent" "${bin}" || cp -f "$tmp_dir/ko-app/gardener-node-agent" "${bin}"
chmod +x "${PATH.nodeAgentBinary}"

echo "> Bootstrap gardener-node-agent"
exec "${PATH.nodeAgentBinary}" bootstrap --config-dir="${PATH.nodeAgentBaseDir}"
`;
}

export interface NodeInitV150Input {
  readonly image: string;
  /** The provision copy (nodeInitComponentConfigV150: bootstrap settings, no token syncs). */
  readonly config: NodeAgentConfigurationV150;
  readonly gitVersion: GardenerVersion;
  /** The cluster CA (`ca` secret, bundle.crt), not the merged bundle. */
  readonly clusterCaBundle: string;
}

export function nodeInitV150(input: NodeInitV150Input): ComponentOutput {
  const units: OscUnit[] = [
    {
      name: UNIT.nodeInit,
      command: 'start',
      enable: true,
      content: NODE_INIT_UNIT_CONTENT_V150,
      filePaths: [PATH.nodeAgentInitScript],
    },
  ];
  const files: OscFile[] = [
    { path: NODE_AGENT_CLUSTER_CA_PATH, permissions: MODE.group, content: b64(input.clusterCaBundle) },
    {
      path: PATH.nodeAgentBootstrapToken,
      permissions: MODE.group,
      content: { ...plain(BOOTSTRAP_TOKEN_PLACEHOLDER), transmitUnencoded: true },
    },
    { path: PATH.nodeAgentInitScript, permissions: MODE.rwx, content: b64(nodeInitScriptV150(input.image)) },
    {
      path: MACHINE_NAME_PATH,
      permissions: MODE.group,
      content: { ...plain(MACHINE_NAME_PLACEHOLDER), transmitUnencoded: true },
    },
    nodeAgentConfigFileV150(input.config, input.gitVersion),
  ];
  return { units, files };
}
