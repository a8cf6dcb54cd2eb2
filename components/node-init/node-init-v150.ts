/**
 * The provision OSC's node init in the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/component/extensions/operatingsystemconfig/nodeinit/nodeinit.go and
 * templates/scripts/init.tpl.sh): `gardener-node-init.service` (needs containerd, logs to the
 * console), then `cluster-ca.crt`, the bootstrap token, `init.sh`, `machine-name` and the node
 * agent's `config-<version>.yaml` with its bootstrap settings. init.sh is rendered with
 * text/template (no escaping), pulls with `--skip-metadata` on containerd ≥ 2, falls back to the
 * ko binary path and bootstraps with `--config-dir`. With a registry CA (v1.149.0, #15150) the
 * unit only wants containerd (init.sh restarts it), init.sh first fetches ConfigMap
 * `kube-system/registry-ca-bundle` with the bootstrap token, and the provision OSC carries
 * `update-local-ca-certificates.sh` for it.
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
import { ROOT_CERTIFICATES_PATH } from '../root-certificates/root-certificates.js';
import {
  REGISTRY_CA_PATH_V150,
  updateLocalCaCertificatesScriptFileV150,
} from '../root-certificates/root-certificates-v150.js';

/** machine-controller-manager replaces it with the Machine's name when it creates the machine. */
export const MACHINE_NAME_PLACEHOLDER = '<<MACHINE_NAME>>';
export const MACHINE_NAME_PATH = `${PATH.nodeAgentBaseDir}/machine-name`;

/**
 * `Wants=` with a registry CA: init.sh restarts containerd, and with `Requires=` that stop would
 * stop the init unit too (gardener v1.150.0 nodeinit.go `generateInitScriptUnit`).
 */
export function nodeInitUnitContentV150(registryCa: boolean): string {
  return NODE_INIT_UNIT_CONTENT_V150.replace(
    'Requires=containerd.service',
    registryCa ? 'Wants=containerd.service' : 'Requires=containerd.service',
  );
}

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

/**
 * init.tpl.sh's registry-CA block: the CA comes from the shoot's ConfigMap (base64 of the PEM
 * under `bundle.crt`), read with the bootstrap token and the cluster CA before the agent exists.
 */
function registryCaBlock(apiServerUrl: string): string {
  const R = REGISTRY_CA_PATH_V150;
  return `

CA_B64=$(curl -f \\
  --cacert "${NODE_AGENT_CLUSTER_CA_PATH}" \\
  --header "Authorization: Bearer $(cat "${PATH.nodeAgentBootstrapToken}" 2>/dev/null)" \\
  "${apiServerUrl}/api/v1/namespaces/kube-system/configmaps/registry-ca-bundle" \\
  | sed -n 's/.*"bundle.crt"[[:space:]]*:[[:space:]]*"\\([^"]*\\)".*/\\1/p')
if [ -n "$CA_B64" ]; then
  mkdir -p "${R.localDir}" "${R.trustAnchorsDir}"
  printf '%s' "$CA_B64" | base64 -d | tee "${R.localBundle}" > "${R.trustAnchor}"
  ${ROOT_CERTIFICATES_PATH.script}
  systemctl restart containerd
  echo "> Registry CA configured"
fi`;
}

/**
 * init.tpl.sh executed for the node agent; the image and the API server URL are inserted as is
 * (text/template). `registryCaApiServerUrl`: with a registry CA, the URL its fetch uses.
 */
export function nodeInitScriptV150(image: string, registryCaApiServerUrl?: string): string {
  const bin = PATH.nodeAgentBinary.slice(0, PATH.nodeAgentBinary.lastIndexOf('/'));
  const registryCa = registryCaApiServerUrl === undefined ? '' : registryCaBlock(registryCaApiServerUrl);
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
trap unmount EXIT${registryCa}

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
  /** Set when gardenlet has a registry CA (its image vector's CA bundle): the URL init.sh fetches it from. */
  readonly registryCa?: { readonly apiServerUrl: string };
}

export function nodeInitV150(input: NodeInitV150Input): ComponentOutput {
  const units: OscUnit[] = [
    {
      name: UNIT.nodeInit,
      command: 'start',
      enable: true,
      content: nodeInitUnitContentV150(input.registryCa !== undefined),
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
    {
      path: PATH.nodeAgentInitScript,
      permissions: MODE.rwx,
      content: b64(nodeInitScriptV150(input.image, input.registryCa?.apiServerUrl)),
    },
    {
      path: MACHINE_NAME_PATH,
      permissions: MODE.group,
      content: { ...plain(MACHINE_NAME_PLACEHOLDER), transmitUnencoded: true },
    },
    ...(input.registryCa ? [updateLocalCaCertificatesScriptFileV150()] : []),
    nodeAgentConfigFileV150(input.config, input.gitVersion),
  ];
  return { units, files };
}
