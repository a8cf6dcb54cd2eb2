/**
 * `health-monitor-containerd` (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/containerd/component.go):
 * systemd restarts a containerd that exits, but not one that hangs. This loop probes containerd's
 * API every 10 s; when containerd is running yet has not answered for more than 60 s, it sends
 * SIGTERM so that systemd restarts it.
 */
export function healthMonitorContainerdScript(): string {
  // No errexit: a failing probe is the normal case this loop handles, not a reason to exit.
  return `#!/bin/bash
set -o nounset
set -o pipefail

readonly interval_seconds=10
readonly unreachable_limit_seconds=60
readonly grace_seconds=20

containerd_pid() {
  systemctl show --property MainPID --value containerd
}

# A hung containerd may hang the probe too, so it gets one interval to answer.
containerd_answers() {
  timeout "$interval_seconds" ctr containers list >/dev/null
}

echo "Start health monitoring for containerd"
unreachable_since=""
while true; do
  if containerd_answers; then
    unreachable_since=""
  else
    pid="$(containerd_pid)"
    if [[ -z "$pid" || "$pid" == 0 ]]; then
      # Not running at all: starting it is systemd's job, not ours.
      echo "containerd is not running, retrying in $interval_seconds seconds"
      unreachable_since=""
    else
      now="$(date +%s)"
      unreachable_since="\${unreachable_since:-$now}"
      if ((now - unreachable_since > unreachable_limit_seconds)); then
        echo "containerd unreachable for more than $unreachable_limit_seconds seconds, sending SIGTERM to PID $pid"
        kill -s TERM "$pid" || true
        sleep "$grace_seconds"
        unreachable_since=""
        continue
      fi
      echo "containerd socket unreachable, retrying in $interval_seconds seconds"
    fi
  fi
  sleep "$interval_seconds"
done
`;
}
