#!/usr/bin/env bash
# Builds (once per machine) what a real node boots, into a cache dir outside the clone, and prints
# that dir as the LAST line on stdout (progress with elapsed seconds goes to stderr):
#
#   rootfs/      a Debian root filesystem (debootstrap minbase of the host's suite and mirror) with
#                systemd, dbus and what the rendered units call (ca-certificates, logrotate,
#                openssh-server), the real-node image layer (hack/real-node/os: containerd and ctr
#                stand-ins, the cloud-init stand-in, the path to the shoot API server), the marker
#                /.container-root-marker and no host identity. Nodes boot it read-only under a
#                tmpfs overlay of their own (nspawn --volatile=overlay): never written, never copied.
#   nspawn/      systemd-container unpacked from its .deb (never installed: its maintainer scripts
#                would run systemd-tmpfiles on this machine's root), matching the host's
#                libsystemd-shared; nspawn/systemd-nspawn is the entry point
#   versions.txt suite, mirror, systemd version, inputs hash
#
#   dir="$(hack/real-node/build.sh | tail -n1)"
#
# The debootstrap result is kept as a tarball beside it (debootstrap-<suite>-<hash>.tar), so a
# change of the image layer only unpacks again (seconds) instead of bootstrapping (minutes).
# Idempotent: a complete cache dir is reused at once. Concurrent builds are serialised by a flock
# whose holder is named; the second caller waits, then takes the fast path. Needs root, a Debian
# host with apt, and debootstrap (`apt-get install debootstrap`; .ci/run installs it).
#
# Environment:
#   XDG_CACHE_HOME             cache root (default ~/.cache); output under gardener-osc/real-node/
#   REAL_NODE_SUITE            Debian suite (default: VERSION_CODENAME of /etc/os-release)
#   REAL_NODE_MIRROR           Debian mirror (default: the host's first apt source for that suite)
#   REAL_NODE_FORCE_REBUILD=1  rebuild even if the cache is complete (debootstrap included)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Bump when the debootstrap recipe changes (packages, cleanup of the tree), to invalidate old caches.
RECIPE=1
PACKAGES=systemd,dbus,systemd-sysv,ca-certificates,logrotate,openssh-server
MARKER=.container-root-marker

T0=${SECONDS}
log() { printf 'real-node: [%3ds] %s\n' "$((SECONDS - T0))" "$*" >&2; }
die() { printf 'real-node: ERROR: %s\n' "$*" >&2; exit 1; }

[[ "$(id -u)" == 0 ]] || die "building a root filesystem needs root (debootstrap chroots and sets ownership)"
{ command -v dpkg-query >/dev/null && command -v apt-get >/dev/null; } ||
  die "a Debian host with apt is required (the root filesystem is the host's own Debian suite)"

# shellcheck disable=SC1091 # the host's own file
SUITE="${REAL_NODE_SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}"
[[ -n "${SUITE}" ]] || die "cannot tell the Debian suite from /etc/os-release; set REAL_NODE_SUITE"

# The first apt source (deb822 or one-line format) that serves the suite.
host_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    awk -v suite="${SUITE}" '
      /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) found = 1 }
      /^$/ { if (found && uri) { print uri; exit } uri = ""; found = 0 }
      END { if (found && uri) print uri }' "$f" | head -n1
  done
  awk -v suite="${SUITE}" '$1 == "deb" && $3 == suite { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true
}
MIRROR="${REAL_NODE_MIRROR:-$(host_mirror | head -n1)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"

SYSTEMD_VERSION="$(dpkg-query -W -f='${Version}' libsystemd-shared 2>/dev/null || true)"
[[ -n "${SYSTEMD_VERSION}" ]] ||
  die "libsystemd-shared is not installed: the unpacked systemd-nspawn links against the host's copy"

sha256() { sha256sum | cut -c1-12; }
DEBOOTSTRAP_HASH="$(echo "recipe=${RECIPE} packages=${PACKAGES} suite=${SUITE} mirror=${MIRROR}" | sha256)"
# the image layer and this script are part of the key: a changed stand-in makes a new cache dir
INPUT_HASH="$(
  {
    echo "debootstrap=${DEBOOTSTRAP_HASH} systemd=${SYSTEMD_VERSION}"
    cat "${BASH_SOURCE[0]}"
    cd "${HERE}/os" && find . -type f | LC_ALL=C sort | while read -r f; do
      printf '%s %s\n' "$f" "$(stat -c %a "$f")"
      cat "$f"
    done
  } | sha256
)"
CACHE_BASE="${XDG_CACHE_HOME:-${HOME}/.cache}/gardener-osc/real-node"
OUT="${CACHE_BASE}/${SUITE}-systemd-${SYSTEMD_VERSION//[^A-Za-z0-9.+-]/_}-${INPUT_HASH}"
DEBOOTSTRAP_TAR="${CACHE_BASE}/debootstrap-${SUITE}-${DEBOOTSTRAP_HASH}.tar"

complete() { [[ -f "${OUT}/rootfs/${MARKER}" && -x "${OUT}/nspawn/systemd-nspawn" && -f "${OUT}/versions.txt" ]]; }
if [[ "${REAL_NODE_FORCE_REBUILD:-}" != 1 ]] && complete; then
  echo "${OUT}"
  exit 0
fi

command -v debootstrap >/dev/null ||
  die "debootstrap is not installed (Debian: apt-get install debootstrap; .ci/run installs it). It only
  unpacks packages into a directory; never install systemd-container on this machine instead."

mkdir -p "${CACHE_BASE}"
# Serialise concurrent builds; the holder writes who it is, so a waiter can say whom it waits for.
exec 9>"${CACHE_BASE}/.lock"
if ! flock -n 9; then
  log "another build holds ${CACHE_BASE}/.lock ($(cat "${CACHE_BASE}/.lock.holder" 2>/dev/null || echo 'holder unknown')); waiting..."
  flock 9
fi
printf 'pid %d since %s: %s\n' "$$" "$(date -u +%FT%TZ)" "${BASH_SOURCE[0]}" >"${CACHE_BASE}/.lock.holder"
if [[ "${REAL_NODE_FORCE_REBUILD:-}" != 1 ]] && complete; then
  echo "${OUT}"
  exit 0
fi

TMP="$(mktemp -d "${CACHE_BASE}/.build-XXXXXX")"
# Every removal below goes through this: the path must be in a build dir of ours, never / or /tmp.
remove_build_dir() {
  local dir="$1" real mount
  real="$(realpath -e -- "${dir}" 2>/dev/null)" || return 0
  [[ "${real}" == "$(realpath -e -- "${CACHE_BASE}")"/.build-* ]] || die "refusing to remove ${real}: not a build dir"
  [[ "$(stat -c '%d:%i' -- "${real}")" != "$(stat -c '%d:%i' /)" ]] || die "refusing to remove /"
  # debootstrap mounts /proc and /sys inside its target; a killed build may leave them there
  while read -r mount; do
    umount -l -- "${mount}" 2>/dev/null || true
  done < <(awk -v p="${real}/" 'index($5 "/", p) == 1 { print $5 }' /proc/self/mountinfo | sort -r)
  rm -rf --one-file-system -- "${real}"
}
CHILD=""
cleanup() {
  if [[ -n "${CHILD}" ]]; then kill -TERM -- "-${CHILD}" 2>/dev/null && wait "${CHILD}" 2>/dev/null; fi
  remove_build_dir "${TMP}"
  rm -f "${CACHE_BASE}/.lock.holder"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs "$@" in its own process group with its output in a log, printing a heartbeat every 15 s.
run() {
  local what="$1" logfile="$2" start=${SECONDS} n=0 rc=0
  shift 2
  set -m
  "$@" >"${logfile}" 2>&1 &
  CHILD=$!
  set +m
  while kill -0 "${CHILD}" 2>/dev/null; do
    sleep 1
    if ((++n % 15 == 0)); then log "  ... still ${what} ($((SECONDS - start))s): $(tail -n1 "${logfile}" | cut -c1-100)"; fi
  done
  wait "${CHILD}" || rc=$?
  CHILD=""
  ((rc == 0)) || { tail -n 20 "${logfile}" >&2; die "${what} failed (exit ${rc}) after $((SECONDS - start))s"; }
  log "  done ${what} in $((SECONDS - start))s"
}

log "building into ${OUT} (${SUITE} from ${MIRROR}, systemd ${SYSTEMD_VERSION}); about 2 minutes cold"

# systemd-nspawn from the systemd-container .deb of exactly the host's systemd version, unpacked.
log "downloading systemd-container=${SYSTEMD_VERSION}..."
mkdir -p "${TMP}/debs" "${TMP}/unpacked" "${TMP}/out/nspawn"
download() { (cd "${TMP}/debs" && apt-get download -o APT::Sandbox::User=root -q "$@"); }
LD_PATH=""
if ! download "systemd-container=${SYSTEMD_VERSION}" >"${TMP}/download.log" 2>&1; then
  # The mirror no longer serves the host's version: take a matching pair of the candidate version.
  CANDIDATE="$(apt-cache policy systemd-container | awk '/Candidate:/ { print $2 }')"
  [[ -n "${CANDIDATE}" && "${CANDIDATE}" != "(none)" ]] ||
    die "apt knows no systemd-container package (run apt-get update): $(cat "${TMP}/download.log")"
  log "  ${SYSTEMD_VERSION} is gone from the mirror; using systemd-container and libsystemd-shared ${CANDIDATE}"
  download "systemd-container=${CANDIDATE}" "libsystemd-shared=${CANDIDATE}" >>"${TMP}/download.log" 2>&1 ||
    die "cannot download systemd-container: $(cat "${TMP}/download.log")"
  LD_PATH=unpacked
  SYSTEMD_VERSION="${CANDIDATE}"
fi
for deb in "${TMP}"/debs/*.deb; do dpkg-deb -x "${deb}" "${TMP}/unpacked"; done # no maintainer scripts
if [[ -n "${LD_PATH}" ]]; then
  LD_PATH="$(find "${TMP}/unpacked" -name 'libsystemd-shared-*.so' -printf '%h\n' | head -n1)"
  [[ -n "${LD_PATH}" ]] || die "libsystemd-shared ${SYSTEMD_VERSION} has no library in its package"
  # shellcheck disable=SC2016 # ${here} is expanded by the wrapper written below, at its run time
  LD_PATH='${here}'"${LD_PATH#"${TMP}/unpacked"}"
fi
mv "${TMP}/unpacked" "${TMP}/out/nspawn/tree"
cat >"${TMP}/out/nspawn/systemd-nspawn" <<WRAPPER
#!/bin/sh
# systemd-nspawn unpacked from systemd-container ${SYSTEMD_VERSION} (never installed on this machine)
here="\$(dirname "\$0")/tree"
${LD_PATH:+LD_LIBRARY_PATH="${LD_PATH}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" }exec "\$here/usr/bin/systemd-nspawn" "\$@"
WRAPPER
chmod 0755 "${TMP}/out/nspawn/systemd-nspawn"
"${TMP}/out/nspawn/systemd-nspawn" --version | head -n1 >&2 || die "the unpacked systemd-nspawn does not run"

if [[ "${REAL_NODE_FORCE_REBUILD:-}" == 1 || ! -f "${DEBOOTSTRAP_TAR}" ]]; then
  log "debootstrap ${SUITE} (minbase + ${PACKAGES})..."
  run "debootstrap" "${TMP}/debootstrap.log" \
    debootstrap --variant=minbase --include="${PACKAGES}" "${SUITE}" "${TMP}/debootstrap" "${MIRROR}"
  # No host identity in the image: nspawn gives every node its machine name as hostname, and
  # systemd a machine id of its own.
  rm -f "${TMP}/debootstrap/etc/hostname" "${TMP}/debootstrap/etc/resolv.conf"
  : >"${TMP}/debootstrap/etc/machine-id"
  printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"${TMP}/debootstrap/etc/hosts"
  rm -rf --one-file-system "${TMP}/debootstrap/var/cache/apt/archives/"*.deb \
    "${TMP}/debootstrap/var/lib/apt/lists/"*_Packages
  tar --numeric-owner --xattrs --acls -C "${TMP}/debootstrap" -cf "${TMP}/debootstrap.tar" .
  remove_build_dir "${TMP}/debootstrap"
  mv -f -- "${TMP}/debootstrap.tar" "${DEBOOTSTRAP_TAR}"
else
  log "using the debootstrap result ${DEBOOTSTRAP_TAR}"
fi

ROOTFS="${TMP}/out/rootfs"
log "unpacking the root filesystem and the image layer into ${ROOTFS}..."
mkdir -p "${ROOTFS}"
tar --numeric-owner --xattrs --acls -C "${ROOTFS}" -xf "${DEBOOTSTRAP_TAR}"
# the image layer: the files of hack/real-node/os with their modes, and its units enabled as
# `systemctl enable` would do offline (never run here)
(cd "${HERE}/os" && find . -type f) | while read -r f; do
  install -D -m "$(stat -c %a "${HERE}/os/${f}")" -- "${HERE}/os/${f}" "${ROOTFS}/${f#./}"
done
enable() {
  mkdir -p "${ROOTFS}/etc/systemd/system/$2.wants"
  ln -sfn "/usr/lib/systemd/system/$1" "${ROOTFS}/etc/systemd/system/$2.wants/$1"
}
enable containerd.service multi-user.target
enable user-data.service multi-user.target
enable kube-apiserver-proxy.socket sockets.target
touch "${ROOTFS}/${MARKER}"
cat >"${TMP}/out/versions.txt" <<VERSIONS
suite=${SUITE}
mirror=${MIRROR}
systemd=${SYSTEMD_VERSION}
packages=${PACKAGES}
inputs=${INPUT_HASH}
VERSIONS

# Publish atomically: a killed build never leaves a half-filled cache dir. Older cache dirs and
# debootstrap results (another image layer, another systemd) would only take space.
mkdir -p "${TMP}/old"
[[ ! -e "${OUT}" ]] || mv -- "${OUT}" "${TMP}/old/"
mv -- "${TMP}/out" "${OUT}"
# A tree a node still boots from stays: nspawn holds a lock on its inode while it runs.
in_use() {
  local lock
  lock="/run/systemd/nspawn/locks/inode-$(stat -c '%d:%i' -- "$1/rootfs" 2>/dev/null)"
  [[ -e "${lock}" ]] && ! flock -n -x "${lock}" true
}
for old in "${CACHE_BASE}"/*-systemd-* "${CACHE_BASE}"/debootstrap-*.tar; do
  [[ -e "${old}" && "${old}" != "${OUT}" && "${old}" != "${DEBOOTSTRAP_TAR}" ]] || continue
  in_use "${old}" || mv -- "${old}" "${TMP}/old/"
done
log "built $(du -sh "${OUT}/rootfs" | cut -f1) rootfs and systemd-nspawn in $((SECONDS - T0))s"
echo "${OUT}"
