/**
 * `/opt/bin/health-monitor-kubelet` of the legacy (gate off) kubelet: restarts kubelet when its
 * health endpoint fails for a minute, as the legacy kubelet-monitor.service expects.
 */
export function kubeletHealthMonitorScript(): string {
  return `#!/bin/bash
# Restarts the kubelet when its healthz endpoint has failed for more than a minute.
set -o nounset
set -o pipefail

readonly healthz_url="http://127.0.0.1:10248/healthz"
readonly max_failure_seconds=60
first_failure=0

while true; do
  if curl -m 10 -fsS "\${healthz_url}" >/dev/null 2>&1; then
    first_failure=0
  else
    now=$(date +%s)
    if [[ "\${first_failure}" -eq 0 ]]; then
      first_failure="\${now}"
      echo "kubelet is unhealthy"
    elif (( now - first_failure > max_failure_seconds )); then
      echo "kubelet has been unhealthy for more than \${max_failure_seconds}s, restarting it"
      systemctl restart kubelet.service || true
      first_failure=0
      sleep 60
    fi
  fi
  sleep 10
done
`;
}
