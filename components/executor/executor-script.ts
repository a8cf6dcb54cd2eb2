/**
 * The legacy executor (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/executor/executor.go), our own: what
 * cloud-config-downloader runs on nodes that have no node agent yet. It applies the OS extension's
 * rendering of the reconcile OSC (during the migration that OSC contains gardener-node-init, which
 * installs the agent), after the node's persisted delay, and reports the applied checksum on the
 * Node like the agent does.
 */
import { formatKubeletDataVolumeScript } from '../../api/index.js';
import { shellQuote } from '../shell-quote.js';

export interface ExecutorInput {
  /** The OS extension's user data for the reconcile OSC (`cloud_config`). */
  readonly cloudConfig: string;
  /** `shoot.gardener.cloud/cloud-config-execution-max-delay-seconds`. */
  readonly maxDelaySeconds: number;
  readonly hyperkubeImage: string;
  readonly kubernetesVersion: string;
  /** Bytes; formats the kubelet data volume first when set. */
  readonly kubeletDataVolumeSize: number | undefined;
  /** `status.command` of the reconcile OSC: how to apply the cloud config. */
  readonly reloadCommand: string | undefined;
  /** `status.units` / `status.files` of the reconcile OSC. */
  readonly units: readonly string[];
  readonly files: readonly string[];
}

/** Units the executor must not restart: the mount, the container runtime of old nodes, itself. */
const NOT_RESTARTED = ['docker.service', 'var-lib-kubelet.mount', 'cloud-config-downloader.service'];

/** A bash array literal of shell-quoted words. */
const array = (words: readonly string[]) => `(${words.map(shellQuote).join(' ')})`;

export function executorScript(input: ExecutorInput): string {
  const units = input.units.filter((u) => !NOT_RESTARTED.includes(u));
  // Embedded as base64 (wrapped at 76): no content can end a here-document early.
  const embed = (text: string) =>
    (
      Buffer.from(text, 'utf8')
        .toString('base64')
        .match(/.{1,76}/g) ?? []
    ).join('\n');
  const format = input.kubeletDataVolumeSize
    ? `format_script="$(mktemp)"
base64 -d > "$format_script" <<'FORMAT_KUBELET_DATA_VOLUME'
${embed(formatKubeletDataVolumeScript(input.kubeletDataVolumeSize))}
FORMAT_KUBELET_DATA_VOLUME
bash "$format_script"
rm -f "$format_script"
`
    : '';
  return `#!/bin/bash
set -o errexit
set -o nounset
set -o pipefail

readonly base=/var/lib/cloud-config-downloader
readonly downloads="$base/downloads"
readonly credentials="$base/credentials"
readonly hyperkube_image=${shellQuote(input.hyperkubeImage)}
readonly kubernetes_version=${shellQuote(input.kubernetesVersion)}
readonly max_delay_seconds=${Math.max(0, Math.trunc(input.maxDelaySeconds))}
readonly reload_command=${shellQuote(input.reloadCommand ?? '')}
readonly units=${array(units)}
readonly files=${array(input.files)}
readonly kubelet_dir=/var/lib/kubelet
readonly kubeconfig_real="$kubelet_dir/kubeconfig-real"
readonly kubeconfig_bootstrap="$kubelet_dir/kubeconfig-bootstrap"
readonly client_cert="$kubelet_dir/pki/kubelet-client-current.pem"

mkdir -p "$downloads" "$kubelet_dir"

${format}# The kubelet and kubectl binaries of this Kubernetes version, from the hyperkube image.
if [[ "$(cat "$downloads/hyperkube-image" 2>/dev/null || true)" != "$hyperkube_image" ]]; then
  docker pull "$hyperkube_image"
  mkdir -p "$downloads/hyperkube"
  docker run --rm -v "$downloads/hyperkube:/out:rw" --entrypoint /bin/sh "$hyperkube_image" -c "cp /kubelet /kubectl /out"
  printf '%s' "$hyperkube_image" > "$downloads/hyperkube-image"
  hyperkube_changed=true
else
  hyperkube_changed=false
fi
cat > "$kubelet_dir/copy-kubernetes-binary.sh" <<'COPY'
#!/bin/bash
set -o errexit
binary="$1"
mkdir -p /opt/bin
cp -f "/var/lib/cloud-config-downloader/downloads/hyperkube/$binary" "/opt/bin/$binary.tmp"
chmod 0755 "/opt/bin/$binary.tmp"
mv -f "/opt/bin/$binary.tmp" "/opt/bin/$binary"
COPY
chmod 0755 "$kubelet_dir/copy-kubernetes-binary.sh"

# The cloud config (written only when it changed) and the downloader script's fingerprint.
cloud_config_changed=false
base64 -d > "$downloads/cloud_config.new" <<'CLOUD_CONFIG'
${embed(input.cloudConfig)}
CLOUD_CONFIG
if ! cmp -s "$downloads/cloud_config.new" "$downloads/cloud_config"; then
  mv -f "$downloads/cloud_config.new" "$downloads/cloud_config"
  cloud_config_changed=true
else
  rm -f "$downloads/cloud_config.new"
fi
downloader_md5="$(md5sum "$base/download-cloud-config.sh" | cut -d' ' -f1)"
downloader_changed=false
if [[ "$(cat "$downloads/downloader-md5" 2>/dev/null || true)" != "$downloader_md5" ]]; then
  downloader_changed=true
fi

# Bootstrap credentials for the kubelet until it has its own.
if [[ -f "$kubeconfig_real" && -f "$client_cert" ]]; then
  rm -f "$kubeconfig_bootstrap" "$credentials/bootstrap-token"
elif [[ -s "$credentials/bootstrap-token" ]]; then
  cat > "$kubeconfig_bootstrap" <<BOOTSTRAP
apiVersion: v1
kind: Config
current-context: kubelet-bootstrap
clusters:
- cluster:
    certificate-authority-data: $(base64 -w0 < "$credentials/ca.crt")
    server: $(cat "$credentials/server")
  name: kubelet-bootstrap
contexts:
- context:
    cluster: kubelet-bootstrap
    user: kubelet-bootstrap
  name: kubelet-bootstrap
users:
- name: kubelet-bootstrap
  user:
    token: $(tr -d '[:space:]' < "$credentials/bootstrap-token")
BOOTSTRAP
  chmod 0600 "$kubeconfig_bootstrap"
fi

kubectl() {
  /opt/bin/kubectl --kubeconfig "$kubeconfig_real" "$@"
}

node_name=""
if [[ -f "$kubeconfig_real" ]]; then
  if [[ -s "$kubelet_dir/nodename" ]]; then
    node_name="$(cat "$kubelet_dir/nodename")"
  else
    node_name="$(kubectl get nodes -l "kubernetes.io/hostname=$(hostname | tr '[:upper:]' '[:lower:]')" -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)"
    [[ -n "$node_name" ]] && printf '%s' "$node_name" > "$kubelet_dir/nodename"
  fi
fi

# Units an operator asked to restart (worker.gardener.cloud/restart-systemd-services), the downloader last.
if [[ -n "$node_name" ]]; then
  requested="$(kubectl get node "$node_name" -o jsonpath='{.metadata.annotations.worker\\.gardener\\.cloud/restart-systemd-services}' 2>/dev/null || true)"
  if [[ -n "$requested" ]]; then
    restart_downloader=false
    IFS=',' read -r -a requested_units <<<"$requested"
    for unit in "\${requested_units[@]}"; do
      if [[ "$unit" == cloud-config-downloader* ]]; then restart_downloader=true; continue; fi
      systemctl restart "$unit" || echo "Restarting $unit failed"
    done
    kubectl annotate node "$node_name" worker.gardener.cloud/restart-systemd-services- >/dev/null
    if [[ "$restart_downloader" == true ]]; then systemctl restart --no-block cloud-config-downloader.service; fi
  fi
fi

# Spread changes over the shoot's nodes: a per-node delay, chosen once and persisted.
if [[ -f "$kubeconfig_real" ]]; then
  if [[ ! -f "$base/execution_delay_seconds" ]]; then
    if (( max_delay_seconds > 0 )); then
      echo $(( 30 + RANDOM % max_delay_seconds )) > "$base/execution_delay_seconds"
    else
      echo 30 > "$base/execution_delay_seconds"
    fi
  fi
  delay="$(cat "$base/execution_delay_seconds")"
  last="$(cat "$base/execution_last_date" 2>/dev/null || echo 0)"
  if (( $(date +%s) - last < delay )); then
    echo "Waiting for the execution delay of $delay seconds"
    exit 0
  fi
fi

if [[ "$cloud_config_changed" == true || "$downloader_changed" == true || "$hyperkube_changed" == true ]]; then
  echo "Applying the cloud config"
  if [[ -n "$reload_command" ]]; then
    bash -c "$reload_command"
  fi
  systemctl daemon-reload
  for unit in "\${units[@]}"; do
    systemctl enable "$unit" && systemctl restart --no-block "$unit"
  done
  # Files of the previous cloud config that the new one no longer has.
  if [[ -f "$downloads/files" ]]; then
    while IFS= read -r old; do
      keep=false
      for file in "\${files[@]}"; do [[ "$file" == "$old" ]] && keep=true && break; done
      if [[ "$keep" == false ]]; then rm -f "$old"; fi
    done < "$downloads/files"
  fi
  printf '%s\\n' "\${files[@]}" > "$downloads/files"
  printf '%s' "$downloader_md5" > "$downloads/downloader-md5"
fi

if [[ -n "$node_name" ]]; then
  kubectl label node "$node_name" --overwrite "worker.gardener.cloud/kubernetes-version=$kubernetes_version" >/dev/null
  kubectl annotate node "$node_name" --overwrite "checksum/cloud-config-data=$(cat "$downloads/execute-cloud-config-checksum")" >/dev/null
fi
date +%s > "$base/execution_last_date"
`;
}
