/**
 * `/opt/bin/health-monitor-kubelet` of the legacy (gate off) kubelet-monitor.service, doing
 * upstream's job: after two minutes of start-up grace, restart the kubelet when its healthz
 * endpoint fails; once the Node exists, put back its InternalIP when the kubelet lost it and the
 * address is still on the machine (else restart the kubelet); count Ready/NotReady toggles. Unlike
 * upstream it never reboots the machine on toggles (docs/compatibility.md N20): it says so instead.
 */
export const KUBELET_MONITOR_PATH = {
  kubectl: '/opt/bin/kubectl',
  kubeconfig: '/var/lib/kubelet/kubeconfig-real',
  nodeName: '/var/lib/kubelet/nodename',
  clientCertificate: '/var/lib/kubelet/pki/kubelet-client-current.pem',
} as const;

export function kubeletHealthMonitorScript(): string {
  const p = KUBELET_MONITOR_PATH;
  return `#!/bin/bash
set -o nounset
set -o pipefail

readonly healthz_url="http://127.0.0.1:10248/healthz"
readonly node_name_file=${p.nodeName}
readonly client_certificate=${p.clientCertificate}
readonly toggle_timeframe_seconds=600
readonly toggle_threshold=5
readonly sleep_seconds=10

kubectl() {
  ${p.kubectl} --kubeconfig ${p.kubeconfig} "$@"
}

restart_kubelet() {
  systemctl restart kubelet.service || true
}

# patch_internal_ip SERVER NODE IP: the kubelet's own credentials may patch its Node's status.
patch_internal_ip() {
  echo "Updating Node object $2 with InternalIP $3."
  curl -fsS -XPATCH \\
    -H "Content-Type: application/strategic-merge-patch+json" \\
    -H "Accept: application/json" \\
    "$1/api/v1/nodes/$2/status" \\
    --data "{\\"status\\":{\\"addresses\\":[{\\"address\\":\\"$3\\",\\"type\\":\\"InternalIP\\"}]}}" \\
    --cacert <(kubectl config view -o 'jsonpath={.clusters[0].cluster.certificate-authority-data}' --raw | base64 -d) \\
    --key "$client_certificate" \\
    --cert "$client_certificate" \\
    >/dev/null 2>&1
}

echo "Start health monitoring for kubelet"
echo "Wait for 2 minutes for kubelet to be functional"
sleep 120

toggles=0
first_not_ready=0
last_ready_status="True"
last_internal_ip=""

while true; do
  if ! output="$(curl -m 10 -fsS "$healthz_url" 2>&1)"; then
    echo "$output"
    echo "Kubelet is unhealthy!"
    restart_kubelet
    sleep 60
    continue
  fi

  node_name=""
  if [[ -s "$node_name_file" ]]; then
    node_name="$(cat "$node_name_file")"
  fi
  if [[ -z "$node_name" ]]; then
    echo "Node name is not known yet, waiting..."
    sleep 20
    continue
  fi

  node_status="$(kubectl get node "$node_name" -o json | jq -r '.status')"
  if [[ -z "$node_status" || "$node_status" == "null" ]]; then
    echo "Node object $node_name not found, waiting."
    sleep 20
    toggles=0
    first_not_ready=0
    continue
  fi

  internal_ip="$(jq -r '.addresses[]? | select(.type=="InternalIP") | .address' <<<"$node_status")"
  external_ip="$(jq -r '.addresses[]? | select(.type=="ExternalIP") | .address' <<<"$node_status")"
  if [[ -z "$internal_ip" && -z "$external_ip" ]]; then
    echo "Kubelet has not reported an InternalIP nor an ExternalIP node address yet."
    if [[ -n "$last_internal_ip" ]] && ip address show | grep -qwF "$last_internal_ip"; then
      echo "Last seen InternalIP $last_internal_ip is still up-to-date"
      server="$(kubectl config view -o 'jsonpath={.clusters[0].cluster.server}')"
      if patch_internal_ip "$server" "$node_name" "$last_internal_ip"; then
        echo "Successfully updated Node object."
        continue
      fi
      echo "An error occurred while updating the Node object."
    fi
    echo "Updating Node object is not possible. Restarting Kubelet."
    restart_kubelet
    sleep 20
    continue
  elif [[ -n "$internal_ip" ]]; then
    last_internal_ip="$internal_ip"
  fi

  # Ready status toggles are counted and reported; the machine is never rebooted for them.
  if status="$(jq -r '.conditions[]? | select(.type=="Ready") | .status' <<<"$node_status")"; then
    now="$(date +%s)"
    if [[ "$status" != "True" ]]; then
      if ((first_not_ready == 0)); then
        first_not_ready="$now"
        echo "Start tracking kubelet ready status toggles."
      fi
    elif ((first_not_ready != 0)) && [[ "$last_ready_status" != "$status" ]]; then
      toggles=$((toggles + 1))
      echo "Kubelet toggled between Ready and NotReady $toggles times"
      if ((toggles >= toggle_threshold)); then
        echo "Kubelet toggled $toggles times within $toggle_timeframe_seconds seconds; not rebooting the machine"
      fi
    fi
    if ((first_not_ready != 0 && now - first_not_ready >= toggle_timeframe_seconds)); then
      toggles=0
      first_not_ready=0
      echo "Resetting kubelet ready status toggle tracking."
    fi
    last_ready_status="$status"
  fi

  sleep "$sleep_seconds"
done
`;
}
