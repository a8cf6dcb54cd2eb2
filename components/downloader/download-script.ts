/**
 * `/var/lib/cloud-config-downloader/download-cloud-config.sh` (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/downloader/downloader.go), our own, for the legacy
 * (gate off) path: one run per systemd restart (every 30 s). Keeps its access token fresh, fetches
 * only the checksum annotation of the executor secret, downloads the secret when it changed, and
 * runs the executor script.
 */
import { shellQuote } from '../shell-quote.js';

export function downloadScript(secretName: string): string {
  return `#!/bin/bash
set -o errexit
set -o nounset
set -o pipefail

readonly secret_name=${shellQuote(secretName)}
readonly base=/var/lib/cloud-config-downloader
readonly credentials="$base/credentials"
readonly downloads="$base/downloads"
readonly token_file="$credentials/token"
readonly bootstrap_token_file="$credentials/bootstrap-token"
readonly checksum_file="$downloads/execute-cloud-config-checksum"
readonly script_file="$downloads/execute-cloud-config.sh"

server="$(cat "$credentials/server")"
readonly server
mkdir -p "$downloads"

# wget_api PATH [HEADER...]: GET from the API server with the best credentials available.
wget_api() {
  local path="$1"
  shift
  local auth=()
  if [[ -s "$token_file" ]]; then
    auth=(--header "Authorization: Bearer $(cat "$token_file")")
  elif [[ -s "$bootstrap_token_file" ]]; then
    auth=(--header "Authorization: Bearer $(cat "$bootstrap_token_file")")
  else
    auth=(--certificate /var/lib/kubelet/pki/kubelet-client-current.pem)
  fi
  wget -qO- --ca-certificate "$credentials/ca.crt" "\${auth[@]}" "$@" "$server$path"
}

# base64 of a data key of a secret returned as YAML (two-space indented "  key: value" lines).
data_key() {
  sed -n "s/^  $1: //p"
}

# Refresh our own access token (written only when it changed).
if token_yaml="$(wget_api /api/v1/namespaces/kube-system/secrets/cloud-config-downloader --header "Accept: application/yaml")"; then
  token="$(printf '%s\\n' "$token_yaml" | data_key token | base64 -d)"
  if [[ -n "$token" ]]; then
    printf '%s' "$token" > "$token_file.tmp"
    if ! diff -q "$token_file.tmp" "$token_file" >/dev/null 2>&1; then
      mv -f "$token_file.tmp" "$token_file"
    else
      rm -f "$token_file.tmp"
    fi
  fi
fi

# Only the metadata of the executor secret: its checksum annotation tells whether to download.
metadata="$(wget_api "/api/v1/namespaces/kube-system/secrets/$secret_name" \\
  --header "Accept: application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")"
checksum="$(printf '%s\\n' "$metadata" | sed -n 's/^    checksum\\/data-script: //p' | tr -d '"')"
previous="<none>"
[[ -f "$checksum_file" ]] && previous="$(cat "$checksum_file")"

if [[ "$checksum" != "$previous" ]]; then
  echo "Executor secret changed ($previous -> $checksum), downloading it"
  secret="$(wget_api "/api/v1/namespaces/kube-system/secrets/$secret_name" --header "Accept: application/yaml")"
  printf '%s\\n' "$secret" | data_key script | base64 -d > "$script_file.tmp"
  chmod +x "$script_file.tmp"
  mv -f "$script_file.tmp" "$script_file"
  printf '%s' "$checksum" > "$checksum_file"
fi

"$script_file"
`;
}
