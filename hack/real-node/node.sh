#!/usr/bin/env bash
# Boots one real node (systemd as PID 1 of an nspawn container) and cleans up what the container
# leaves on the host, whatever way it ends. Test tooling only.
#
#   node.sh boot  --name NAME --root ROOTFS --root-parent DIR --base BASE --node-dir DIR
#                 --nspawn FILE [--bind SRC:DST]... [--bind-ro SRC:DST]... [--owner PID]
#   node.sh clean --name NAME --base BASE --node-dir DIR [--root ROOTFS] [--owner PID]
#
# ROOTFS (hack/real-node/build.sh's rootfs/) is booted read-only under a tmpfs overlay of the
# node's own (nspawn --volatile=overlay): the node's writes live in memory and go with it. The
# node directory (inside BASE) holds the node's own files: console.log, nspawn.pid, what is
# bind-mounted into it.
#
# boot runs in the foreground until the container has shut down: SIGTERM/SIGINT/SIGHUP power it
# off (SIGKILL of the whole container after 10 s), then `clean` runs. The work runs in a session
# of its own, tied to this process by a parent-death signal: whoever stops boot (hack/envtest's
# supervisor SIGKILLs its process group after a second SIGTERM) cannot kill the cleanup with it.
# clean (also for a node whose runner died) kills what is left of the container through its
# cgroup, removes the container's cgroups under /sys/fs/cgroup/{unified,systemd}/NAME, its entries
# under /run/systemd/nspawn, and the node directory. With --owner, an owner that is gone also takes
# the empty run directory and BASE with it.
#
# Safety rules (docs/real-node.md#safety-rules-enforced-in-code), enforced before anything happens:
#   - ROOTFS resolves strictly inside ROOT-PARENT, is not / (device and inode) and holds
#     /.container-root-marker;
#   - ROOT-PARENT and BASE are not / and not under /tmp;
#   - NAME is a real-node name (real-node-...), so no other cgroup or /run entry is ever touched;
#   - the node directory lies strictly inside BASE and holds .real-node-dir; nothing is removed
#     below a mount point (rm --one-file-system, and a mount below it stops the removal).
set -euo pipefail

ROOT_MARKER=.container-root-marker
NODE_DIR_MARKER=.real-node-dir
NAME_PATTERN='^real-node-[a-z0-9][a-z0-9-]{0,40}$'
GRACE_SECONDS=10

die() { printf 'real-node: %s\n' "$*" >&2; exit 2; }
log() { printf 'real-node[%s]: %s\n' "${NAME:-?}" "$*" >&2; }

same_inode() { [[ "$(stat -c '%d:%i' -- "$1")" == "$(stat -c '%d:%i' -- "$2")" ]]; }

# Prints the resolved parent directory after refusing / and anything under /tmp.
guard_parent() {
  local dir real tmp
  dir="$1"
  real="$(realpath -e -- "${dir}" 2>/dev/null)" || die "refusing: ${dir} does not exist"
  ! same_inode "${real}" / || die "refusing: ${dir} is /"
  tmp="$(realpath -e /tmp)"
  [[ "${real}" != "${tmp}" && "${real}" != "${tmp}"/* ]] ||
    die "refusing: ${dir} is under /tmp (a systemd there could wipe it; use /var/tmp/...)"
  printf '%s' "${real}"
}

# Prints the resolved ROOTFS after refusing /, anything outside its parent, a tree without the marker.
guard_root() {
  local root parent real
  root="$1" parent="$2"
  real="$(realpath -e -- "${root}" 2>/dev/null)" || die "refusing: root ${root} does not exist"
  ! same_inode "${real}" / || die "refusing: root ${root} is /"
  [[ "${real}" == "${parent}"/?* ]] || die "refusing: root ${root} is not inside ${parent}"
  [[ -f "${real}/${ROOT_MARKER}" && ! -L "${real}/${ROOT_MARKER}" ]] ||
    die "refusing: root ${root} has no ${ROOT_MARKER}"
  printf '%s' "${real}"
}

# Prints the resolved node directory after refusing anything that is not one inside BASE; returns 1
# when it does not exist.
guard_node_dir() {
  local dir real
  dir="$1"
  real="$(realpath -e -- "${dir}" 2>/dev/null)" || return 1
  ! same_inode "${real}" / || die "refusing: node directory ${dir} is /"
  [[ "${real}" == "${BASE}"/?* ]] || die "refusing: node directory ${dir} is not inside ${BASE}"
  [[ -f "${real}/${NODE_DIR_MARKER}" && ! -L "${real}/${NODE_DIR_MARKER}" ]] ||
    die "refusing: node directory ${dir} has no ${NODE_DIR_MARKER}"
  printf '%s' "${real}"
}

# The cgroup2 hierarchy nspawn's payload goes to: /sys/fs/cgroup/unified on hybrid hosts.
cgroup2_base() {
  if [[ "$(stat -f -c %T /sys/fs/cgroup)" == cgroup2fs ]]; then
    echo /sys/fs/cgroup
  elif [[ -d /sys/fs/cgroup/unified && "$(stat -f -c %T /sys/fs/cgroup/unified)" == cgroup2fs ]]; then
    echo /sys/fs/cgroup/unified
  else
    die "no cgroup2 hierarchy at /sys/fs/cgroup or /sys/fs/cgroup/unified"
  fi
}

populated() { [[ -f "$1/cgroup.events" ]] && grep -q '^populated 1' "$1/cgroup.events"; }

# SIGKILLs every process of the container (nspawn and what runs inside) and waits until none is left.
kill_cgroup() {
  local cg="$1" i
  [[ -d "${cg}" ]] || return 0
  populated "${cg}" || return 0
  log "killing what is left in ${cg}"
  echo 1 >"${cg}/cgroup.kill"
  for ((i = 0; i < 100; i++)); do
    populated "${cg}" || return 0
    sleep 0.1
  done
  die "processes are left in ${cg} after cgroup.kill"
}

remove_cgroup_tree() {
  local cg="$1"
  [[ -d "${cg}" ]] || return 0
  find "${cg}" -depth -type d -exec rmdir -- {} + 2>/dev/null || true
  [[ ! -d "${cg}" ]] || log "could not remove ${cg} (still in use?)"
}

# nspawn's host-side state of this machine under /run/systemd/nspawn (its mount propagation
# directory, and the lock on the image inode once no other node holds it); the shared directories
# go when they are empty.
remove_run_leftovers() {
  local dir entry lock
  dir=/run/systemd/nspawn
  [[ -d "${dir}" ]] || return 0
  for entry in "${dir}"/*/"${NAME}"; do
    [[ ! -e "${entry}" ]] || rm -rf --one-file-system -- "${entry}"
  done
  if [[ -n "${ROOT_INODE:-}" ]]; then
    lock="${dir}/locks/inode-${ROOT_INODE}"
    if [[ -e "${lock}" ]] && flock -n -x "${lock}" true; then rm -f -- "${lock}"; fi
  fi
  for entry in "${dir}"/*/; do rmdir -- "${entry}" 2>/dev/null || true; done
  rmdir -- "${dir}" 2>/dev/null || true
}

remove_node_dir() {
  local real rc=0
  [[ -n "${BASE}" ]] || return 0
  real="$(guard_node_dir "${NODE_DIR}")" || rc=$?
  ((rc != 1)) || return 0 # already gone
  ((rc == 0)) || exit "${rc}"
  if awk -v p="${real}/" 'index($5 "/", p) == 1 { found = 1 } END { exit !found }' /proc/self/mountinfo; then
    die "refusing to remove ${real}: something is mounted below it"
  fi
  find "${real}" -mindepth 1 -maxdepth 1 ! -name "${NODE_DIR_MARKER}" -exec rm -rf --one-file-system -- {} +
  rm -f -- "${real:?}/${NODE_DIR_MARKER}"
  rmdir -- "${real}"
  # the run directory and the base go with the last node once whoever made them is gone
  if [[ -n "${OWNER}" ]] && ! kill -0 "${OWNER}" 2>/dev/null; then
    if rmdir -- "$(dirname "${real}")" 2>/dev/null; then rmdir -- "${BASE}" 2>/dev/null || true; fi
  fi
}

clean() {
  local cg2
  cg2="$(cgroup2_base)/${NAME}"
  kill_cgroup "${cg2}"
  remove_cgroup_tree "${cg2}"
  remove_cgroup_tree "/sys/fs/cgroup/systemd/${NAME}"
  remove_run_leftovers
  remove_node_dir
}

boot() {
  local cg2 child rc=0 stopping=0 watchdog=""
  cg2="$(cgroup2_base)/${NAME}"
  [[ ! -e "${cg2}" ]] || die "refusing: ${cg2} exists (a node of that name runs, or was not cleaned: node.sh clean)"
  mkdir -- "${cg2}"
  # The payload must be pure cgroup2: with the v1 controllers of a hybrid host nspawn would manage
  # the host's own v1 tree.
  export SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1
  # Only nspawn moves into the node's cgroup (so cgroup.kill never hits this script). It runs in a
  # process group of its own: a signal to this script's group reaches it once, forwarded below (a
  # second SIGTERM would make nspawn kill the container instead of powering it off). If this script
  # is SIGKILLed, nspawn still gets SIGTERM (parent-death signal) and powers the container off;
  # the next run's reaper then removes what is left (node.sh clean).
  set -m
  # shellcheck disable=SC2016 # $$ and $1 belong to the inner shell
  setpriv --pdeathsig TERM -- bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' node-cgroup "${cg2}" \
    "${NSPAWN}" --directory="${ROOT}" --volatile=overlay --boot --machine="${NAME}" --register=no \
    --keep-unit --private-network --console=read-only "${NSPAWN_ARGS[@]}" &
  child=$!
  set +m
  echo "${child}" >"${NODE_DIR}/nspawn.pid"
  stop() {
    ((stopping == 0)) || return 0 # one SIGTERM to nspawn: a second one kills instead of powering off
    stopping=1
    log "stopping: power-off of the container"
    kill -TERM "${child}" 2>/dev/null || true
    (
      sleep "${GRACE_SECONDS}"
      [[ ! -f "${cg2}/cgroup.kill" ]] || echo 1 >"${cg2}/cgroup.kill"
    ) &
    watchdog=$!
  }
  trap stop TERM INT HUP
  while kill -0 "${child}" 2>/dev/null; do
    wait "${child}" && rc=0 || rc=$?
  done
  trap - TERM INT HUP
  [[ -z "${watchdog}" ]] || kill "${watchdog}" 2>/dev/null || true
  clean
  return "${rc}"
}

[[ $# -ge 1 ]] || die "usage: node.sh boot|clean --name NAME --base BASE --node-dir DIR [...]"
COMMAND="$1"
shift
ARGS=("$@")
NAME="" ROOT="" ROOT_PARENT="" BASE="" NODE_DIR="" NSPAWN="" OWNER=""
NSPAWN_ARGS=()
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || die "$1 needs a value"
  case "$1" in
    --name) NAME="$2" ;;
    --root) ROOT="$2" ;;
    --root-parent) ROOT_PARENT="$2" ;;
    --base) BASE="$2" ;;
    --node-dir) NODE_DIR="$2" ;;
    --nspawn) NSPAWN="$2" ;;
    --owner) OWNER="$2" ;;
    --bind | --bind-ro) NSPAWN_ARGS+=("$1=$2") ;;
    *) die "unknown argument $1" ;;
  esac
  shift 2
done
[[ "${NAME}" =~ ${NAME_PATTERN} ]] || die "refusing: node name '${NAME}' does not match ${NAME_PATTERN}"
[[ -n "${BASE}" && -n "${NODE_DIR}" ]] || die "--base and --node-dir are required"
# a node that is cleaned up after may have lost its directories already
if [[ "${COMMAND}" != clean || -e "${BASE}" ]]; then BASE="$(guard_parent "${BASE}")"; else BASE=""; fi

case "${COMMAND}" in
  boot)
    # the same command again, in a new session; it gets SIGTERM when this process goes, however
    exec setsid --fork --wait setpriv --pdeathsig TERM -- bash "${BASH_SOURCE[0]}" boot-detached "${ARGS[@]}"
    ;;
  boot-detached)
    [[ -n "${ROOT_PARENT}" ]] || die "--root-parent is required"
    [[ -x "${NSPAWN}" ]] || die "--nspawn ${NSPAWN} is not executable (hack/real-node/build.sh builds it)"
    ROOT="$(guard_root "${ROOT}" "$(guard_parent "${ROOT_PARENT}")")"
    ROOT_INODE="$(stat -c '%d:%i' -- "${ROOT}")"
    NODE_DIR="$(guard_node_dir "${NODE_DIR}")" || die "refusing: node directory ${NODE_DIR} does not exist"
    boot
    ;;
  clean)
    # only the lock on the image needs the root; nothing is started
    [[ -z "${ROOT}" || ! -d "${ROOT}" ]] || ROOT_INODE="$(stat -c '%d:%i' -- "${ROOT}")"
    clean
    ;;
  *) die "unknown command ${COMMAND} (boot or clean)" ;;
esac
