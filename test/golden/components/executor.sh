#!/bin/bash
set -o errexit
set -o nounset
set -o pipefail

readonly base=/var/lib/cloud-config-downloader
readonly downloads="$base/downloads"
readonly credentials="$base/credentials"
readonly hyperkube_image=europe-docker.pkg.dev/gardener-project/releases/hyperkube:v1.30.5
readonly kubernetes_version=1.30.5
readonly max_delay_seconds=300
readonly reload_command='/usr/bin/env bash /var/lib/cloud-config-downloader/downloads/cloud_config'
readonly units=(kubelet.service gardener-node-init.service)
readonly files=(/var/lib/kubelet/config/kubelet /var/lib/gardener-node-agent/init.sh)
readonly kubelet_dir=/var/lib/kubelet
readonly kubeconfig_real="$kubelet_dir/kubeconfig-real"
readonly kubeconfig_bootstrap="$kubelet_dir/kubeconfig-bootstrap"
readonly client_cert="$kubelet_dir/pki/kubelet-client-current.pem"

mkdir -p "$downloads" "$kubelet_dir"

format_script="$(mktemp)"
base64 -d > "$format_script" <<'FORMAT_KUBELET_DATA_VOLUME'
IyEvYmluL2Jhc2gKc2V0IC1vIGVycmV4aXQKc2V0IC1vIG5vdW5zZXQKc2V0IC1vIHBpcGVmYWls
CgpyZWFkb25seSBsYWJlbD1LVUJFREVWCnJlYWRvbmx5IHNpemU9MTIzNApyZWFkb25seSBtb3Vu
dF9wb2ludD0vdmFyL2xpYi9rdWJlbGV0CnJlYWRvbmx5IGNvcHlfZGlyPS90bXAvdmFybGlia3Vi
ZWxldGNwCgppZiBibGtpZCAtLWxhYmVsICIkbGFiZWwiID4vZGV2L251bGwgMj4mMTsgdGhlbgog
IGVjaG8gIkt1YmVsZXQgZGF0YSBkZXZpY2Ugd2l0aCBsYWJlbCAkbGFiZWwgYWxyZWFkeSBleGlz
dHMiCiAgZXhpdCAwCmZpCgplY2hvICJNYXRjaGluZyBrdWJlbGV0IGRhdGEgZGV2aWNlIGJ5IHNp
emUgOiAkc2l6ZSIKZGV2aWNlPSIiCndoaWxlIElGUz0gcmVhZCAtciBsaW5lOyBkbwogIG5hbWU9
IiQoc2VkIC1uICdzLy4qTkFNRT0iXChbXiJdKlwpIi4qL1wxL3AnIDw8PCIkbGluZSIpIgogIFtb
IC1uICIkbmFtZSIgXV0gfHwgY29udGludWUKICBpZiBsc2JsayAtZGJzblAgLW8gTkFNRSxNT1VO
VFBPSU5ULFRZUEUgfCBncmVwIC1FICJOQU1FPVwiJHtuYW1lfVteXCJdKlwiLipNT1VOVFBPSU5U
PVwiLy4qVFlQRT1cInBhcnRcIiIgPi9kZXYvbnVsbDsgdGhlbgogICAgY29udGludWUKICBmaQog
IGRldmljZT0iJG5hbWUiCiAgYnJlYWsKZG9uZSA8IDwobHNibGsgLWRic25QIC1vIE5BTUUsUEFS
VFRZUEUsRlNUWVBFLFNJWkUsUEFUSCxUWVBFIHwgZ3JlcCAnVFlQRT0iZGlzayInIHwgZ3JlcCAt
RSAnUEFSVFRZUEU9IiIuKkZTVFlQRT0iIi4qU0laRT0iMTIzNCInIHx8IHRydWUpCgppZiBbWyAt
eiAiJGRldmljZSIgXV07IHRoZW4KICBlY2hvICJObyBrdWJlbGV0IGRhdGEgZGV2aWNlIGZvdW5k
IgogIGV4aXQgMQpmaQoKZWNobyAiRm9ybWF0dGluZyAvZGV2LyRkZXZpY2Ugd2l0aCBsYWJlbCAk
bGFiZWwiCm1rZnMuZXh0NCAtTCAiJGxhYmVsIiAtTyBxdW90YSAtRSBsYXp5X2l0YWJsZV9pbml0
PTAsbGF6eV9qb3VybmFsX2luaXQ9MCxxdW90YXR5cGU9dXNycXVvdGE6Z3JwcXVvdGE6cHJqcXVv
dGEgIi9kZXYvJGRldmljZSIKbWtkaXIgLXAgIiRtb3VudF9wb2ludCIgIiRjb3B5X2RpciIKbW91
bnQgTEFCRUw9IiRsYWJlbCIgIiRjb3B5X2RpciIKIyAiZGlyLy4iIGNvcGllcyB0aGUgY29udGVu
dCwgZG90IGZpbGVzIGluY2x1ZGVkLCBhbmQgYW4gZW1wdHkgZGlyZWN0b3J5IChhIGZyZXNoIG5v
ZGUpIGFzIHdlbGwuCmNwIC1hICIkbW91bnRfcG9pbnQvLiIgIiRjb3B5X2Rpci8iCnVtb3VudCAi
JGNvcHlfZGlyIgptb3VudCBMQUJFTD0iJGxhYmVsIiAiJG1vdW50X3BvaW50IiAtbyBkZWZhdWx0
cyxwcmpxdW90YSxlcnJvcnM9cmVtb3VudC1ybwplY2hvICJLdWJlbGV0IGRhdGEgZGV2aWNlIC9k
ZXYvJGRldmljZSBpcyBtb3VudGVkIG9uICRtb3VudF9wb2ludCIK
FORMAT_KUBELET_DATA_VOLUME
bash "$format_script"
rm -f "$format_script"
# The kubelet and kubectl binaries of this Kubernetes version, from the hyperkube image.
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
IyEvYmluL2Jhc2gKZWNobyBhcHBsaWVkCkNMT1VEX0NPTkZJRwo=
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
  requested="$(kubectl get node "$node_name" -o jsonpath='{.metadata.annotations.worker\.gardener\.cloud/restart-systemd-services}' 2>/dev/null || true)"
  if [[ -n "$requested" ]]; then
    restart_downloader=false
    IFS=',' read -r -a requested_units <<<"$requested"
    for unit in "${requested_units[@]}"; do
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
  for unit in "${units[@]}"; do
    systemctl enable "$unit" && systemctl restart --no-block "$unit"
  done
  # Files of the previous cloud config that the new one no longer has.
  if [[ -f "$downloads/files" ]]; then
    while IFS= read -r old; do
      keep=false
      for file in "${files[@]}"; do [[ "$file" == "$old" ]] && keep=true && break; done
      if [[ "$keep" == false ]]; then rm -f "$old"; fi
    done < "$downloads/files"
  fi
  printf '%s\n' "${files[@]}" > "$downloads/files"
  printf '%s' "$downloader_md5" > "$downloads/downloader-md5"
fi

if [[ -n "$node_name" ]]; then
  kubectl label node "$node_name" --overwrite "worker.gardener.cloud/kubernetes-version=$kubernetes_version" >/dev/null
  kubectl annotate node "$node_name" --overwrite "checksum/cloud-config-data=$(cat "$downloads/execute-cloud-config-checksum")" >/dev/null
fi
date +%s > "$base/execution_last_date"
