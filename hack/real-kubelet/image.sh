#!/usr/bin/env bash
# Builds (once per machine) the real-node image variant that runs a real kubelet and containerd, into
# a cache dir outside the clone, and prints that dir as the LAST line on stdout (progress on stderr):
#
#   rootfs/      a copy of hack/real-node/build.sh's rootfs (never the machine's root) with Debian's
#                containerd, runc, containernetworking-plugins and iproute2 (and the libraries they
#                need that the image lacks) unpacked into it with `dpkg-deb -x` (no maintainer
#                script runs), Debian's containerd.service in place of the stand-in, the `ctr`
#                stand-in kept (node-init and the agent take their files from image directories),
#                one CNI network, /etc/resolv.conf, the pause image of hack/real-kubelet/build.sh,
#                and the layer hack/real-kubelet/os (the node-side prep unit, the pause import)
#   nspawn/      the base image's unpacked systemd-nspawn, copied
#   versions.txt package versions, inputs hash
#
#   dir="$(hack/real-kubelet/image.sh | tail -n1)"
#
# Idempotent, one build at a time (flock). Needs root and apt (it downloads the .debs with the
# machine's package lists, as hack/real-node/build.sh does for systemd-container).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RECIPE=1
PACKAGES=(containerd runc containernetworking-plugins iproute2 libbpf1 libcap2-bin libelf1 libmnl0 libxtables12)
MARKER=.container-root-marker

T0=${SECONDS}
log() { printf 'real-kubelet-image: [%3ds] %s\n' "$((SECONDS - T0))" "$*" >&2; }
die() { printf 'real-kubelet-image: ERROR: %s\n' "$*" >&2; exit 1; }

[[ "$(id -u)" == 0 ]] || die "building a root filesystem needs root (ownership of the unpacked files)"
BASE_IMAGE="$(bash "${HERE}/../real-node/build.sh" | tail -n1)"
KUBELET_DIR="$(bash "${HERE}/build.sh" | tail -n1)"
[[ -f "${BASE_IMAGE}/rootfs/${MARKER}" ]] || die "the base image ${BASE_IMAGE} has no ${MARKER}"

VERSIONS="$(for p in "${PACKAGES[@]}"; do printf '%s=%s\n' "$p" "$(apt-cache policy "$p" | awk '/Candidate:/ { print $2 }')"; done)"
grep -q '=(none)$\|=$' <<<"${VERSIONS}" && die "apt knows no candidate for: $(grep '=(none)$\|=$' <<<"${VERSIONS}" | tr '\n' ' ') (run apt-get update)"
sha256() { sha256sum | cut -c1-12; }
INPUT_HASH="$(
  {
    echo "recipe=${RECIPE} base=${BASE_IMAGE} kubelet=${KUBELET_DIR}"
    echo "${VERSIONS}"
    cat "${BASH_SOURCE[0]}"
    cd "${HERE}/os" && find . -type f | LC_ALL=C sort | while read -r f; do
      printf '%s %s\n' "$f" "$(stat -c %a "$f")"
      cat "$f"
    done
  } | sha256
)"
CACHE_BASE="${XDG_CACHE_HOME:-${HOME}/.cache}/gardener-osc/real-kubelet"
OUT="${CACHE_BASE}/node-${INPUT_HASH}"
complete() { [[ -f "${OUT}/rootfs/${MARKER}" && -x "${OUT}/nspawn/systemd-nspawn" && -f "${OUT}/versions.txt" ]]; }
if complete; then
  echo "${OUT}"
  exit 0
fi

mkdir -p "${CACHE_BASE}"
exec 9>"${CACHE_BASE}/.image-lock"
if ! flock -n 9; then
  log "another build holds ${CACHE_BASE}/.image-lock; waiting..."
  flock 9
fi
if complete; then
  echo "${OUT}"
  exit 0
fi

TMP="$(mktemp -d "${CACHE_BASE}/.image-XXXXXX")"
remove_build_dir() {
  local real
  real="$(realpath -e -- "$1" 2>/dev/null)" || return 0
  [[ "${real}" == "$(realpath -e -- "${CACHE_BASE}")"/.image-* ]] || die "refusing to remove ${real}: not a build dir"
  [[ "$(stat -c '%d:%i' -- "${real}")" != "$(stat -c '%d:%i' /)" ]] || die "refusing to remove /"
  rm -rf --one-file-system -- "${real}"
}
trap 'remove_build_dir "${TMP}"' EXIT

log "building ${OUT} from ${BASE_IMAGE}"
mkdir -p "${TMP}/debs" "${TMP}/unpacked" "${TMP}/out"
mapfile -t WANTED <<<"${VERSIONS}"
(cd "${TMP}/debs" && apt-get download -o APT::Sandbox::User=root -q "${WANTED[@]}" >&2) ||
  die "cannot download ${WANTED[*]} (run apt-get update)"
for deb in "${TMP}"/debs/*.deb; do dpkg-deb -x "${deb}" "${TMP}/unpacked"; done # no maintainer scripts
# the image's /bin, /sbin and /lib are links into /usr: a package's top-level directories go there
for d in bin sbin lib lib64; do
  if [[ -d "${TMP}/unpacked/${d}" && ! -L "${TMP}/unpacked/${d}" ]]; then
    mkdir -p "${TMP}/unpacked/usr/${d}"
    cp -a "${TMP}/unpacked/${d}/." "${TMP}/unpacked/usr/${d}/"
    rm -rf "${TMP}/unpacked/${d:?}"
  fi
done
# the rendered init-containerd writes containerd's default configuration where none is
rm -f "${TMP}/unpacked/etc/containerd/config.toml"

log "copying the base root filesystem..."
cp -a --reflink=auto "${BASE_IMAGE}/rootfs" "${TMP}/out/rootfs"
cp -a "${BASE_IMAGE}/nspawn" "${TMP}/out/nspawn"
ROOTFS="${TMP}/out/rootfs"
cp -a "${TMP}/unpacked/." "${ROOTFS}/"
# Debian's containerd in place of the stand-in (its unit took the stand-in unit's path, which the
# image enables); the ctr stand-in stays first on PATH
rm -f "${ROOTFS}/usr/local/bin/containerd"
# the agent judges whether its applies are in effect: the components are real here
rm -f "${ROOTFS}/etc/systemd/system.conf.d/real-node-stand-ins.conf"
[[ -x "${ROOTFS}/usr/bin/containerd" && -x "${ROOTFS}/usr/sbin/runc" ]] || die "containerd or runc missing after unpacking"
mkdir -p "${ROOTFS}/opt/cni"
ln -sfn /usr/lib/cni "${ROOTFS}/opt/cni/bin"
install -D -m 0644 "${KUBELET_DIR}/pause.oci.tar" "${ROOTFS}/usr/local/share/real-node/pause.oci.tar"
rm -f "${ROOTFS}/etc/resolv.conf"
(cd "${HERE}/os" && find . -type f) | while read -r f; do
  install -D -m "$(stat -c %a "${HERE}/os/${f}")" -- "${HERE}/os/${f}" "${ROOTFS}/${f#./}"
done
for unit in real-node-kubelet-prep.service real-node-pause-image.service; do
  mkdir -p "${ROOTFS}/etc/systemd/system/multi-user.target.wants"
  ln -sfn "/usr/lib/systemd/system/${unit}" "${ROOTFS}/etc/systemd/system/multi-user.target.wants/${unit}"
done
{
  echo "base=${BASE_IMAGE}"
  echo "kubelet=${KUBELET_DIR}"
  echo "${VERSIONS}"
  echo "inputs=${INPUT_HASH}"
} >"${TMP}/out/versions.txt"

mv -- "${TMP}/out" "${OUT}"
# Older variants (another base or kubelet) would only take space; one a node still boots from stays.
in_use() {
  local lock
  lock="/run/systemd/nspawn/locks/inode-$(stat -c '%d:%i' -- "$1/rootfs" 2>/dev/null)"
  [[ -e "${lock}" ]] && ! flock -n -x "${lock}" true
}
mkdir -p "${TMP}/old"
for old in "${CACHE_BASE}"/node-*; do
  [[ -d "${old}" && "${old}" != "${OUT}" ]] || continue
  in_use "${old}" || mv -- "${old}" "${TMP}/old/"
done
log "built $(du -sh "${OUT}/rootfs" | cut -f1) rootfs in $((SECONDS - T0))s"
echo "${OUT}"
