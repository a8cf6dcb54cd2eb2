#!/usr/bin/env bash
# Builds (once) what the real node needs to run a real kubelet, from the Go module in this directory:
#   kubelet         k8s.io/kubernetes/cmd/kubelet (version-stamped like hack/envtest's kube-apiserver)
#   pause           ./cmd/pause, a static pod-sandbox process (no registry is reachable here)
#   pause.oci.tar   an OCI image archive of it (umoci), which the node imports into containerd
# into a content-addressed cache dir outside the work tree, and prints that dir as the LAST line on
# stdout. Everything else goes to stderr.
#
#   dir="$(hack/real-kubelet/build.sh | tail -n1)"
#
# Environment:
#   XDG_CACHE_HOME   cache root (default ~/.cache); output goes to
#                    $XDG_CACHE_HOME/gardener-osc/real-kubelet/k8s-<v>-<hash>/
#   REAL_KUBELET_GO_PARALLELISM  `go build -p` (default: number of CPUs, at most 4)
#   REAL_KUBELET_FORCE_REBUILD=1 rebuild even if the cache dir is complete
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUTPUTS=(kubelet pause pause.oci.tar versions.txt)
# Bump when the build recipe (flags, ldflags, image layout) changes, to invalidate old caches.
RECIPE=1
# The tag the pause image is imported under: what containerd 1.6's default sandbox_image names.
PAUSE_TAG=3.6

log() { printf 'real-kubelet: %s\n' "$*" >&2; }
die() { printf 'real-kubelet: ERROR: %s\n' "$*" >&2; exit 1; }

K8S_VERSION="$(awk '$1=="k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' "${HERE}/go.mod")"
[[ -n "${K8S_VERSION}" ]] || die "cannot read the Kubernetes version from ${HERE}/go.mod"

sha256() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi; }
INPUT_HASH="$(
  cd "${HERE}"
  { echo "recipe=${RECIPE} pause=${PAUSE_TAG}"; cat go.sum go.mod build.sh; find cmd -type f -name '*.go' | LC_ALL=C sort | xargs cat; } | sha256 | cut -c1-12
)"
CACHE_BASE="${XDG_CACHE_HOME:-${HOME}/.cache}/gardener-osc/real-kubelet"
OUT="${CACHE_BASE}/k8s-${K8S_VERSION}-${INPUT_HASH}"

complete() {
  local f
  for f in "${OUTPUTS[@]}"; do [[ -s "${OUT}/${f}" ]] || return 1; done
}
if [[ "${REAL_KUBELET_FORCE_REBUILD:-}" != 1 ]] && complete; then
  echo "${OUT}"
  exit 0
fi

command -v go >/dev/null 2>&1 || die "the Go toolchain ('go') is not on PATH: building the kubelet ${K8S_VERSION} needs Go >= 1.24 (tested with go1.26.8)"
command -v umoci >/dev/null 2>&1 || die "umoci is not on PATH (Debian package umoci): it makes the pause image's OCI archive"
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0
GOVERSION="$(go env GOVERSION)"

mkdir -p "${CACHE_BASE}"
# Serialise concurrent builds: the second one waits, then finds the cache.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${CACHE_BASE}/.lock"
  if ! flock -n 9; then
    log "another build is running; waiting for ${CACHE_BASE}/.lock ..."
    flock 9
  fi
  if [[ "${REAL_KUBELET_FORCE_REBUILD:-}" != 1 ]] && complete; then
    echo "${OUT}"
    exit 0
  fi
fi

TMP="$(mktemp -d "${CACHE_BASE}/.build-XXXXXX")"
chmod 755 "${TMP}"
CHILD=""
cleanup() {
  # The build runs in its own process group: take the compiler/linker children down with it.
  if [[ -n "${CHILD}" ]]; then kill -TERM -- "-${CHILD}" 2>/dev/null || true; fi
  rm -rf "${TMP}"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

T0=${SECONDS}
# Runs "$@" in the background, printing a heartbeat to stderr every 30 s.
run() {
  local what="$1"; shift
  local start=${SECONDS} n=0
  set -m
  "$@" >&2 &
  CHILD=$!
  set +m
  while kill -0 "${CHILD}" 2>/dev/null; do
    sleep 1
    if (( ++n % 30 == 0 )); then log "  ... still ${what} ($((SECONDS - start))s)"; fi
  done
  local rc=0
  wait "${CHILD}" || rc=$?
  CHILD=""
  ((rc == 0)) || die "${what} failed (exit ${rc}) after $((SECONDS - start))s"
  log "  done ${what} in $((SECONDS - start))s"
}

cd "${HERE}"
NCPU="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
P="${REAL_KUBELET_GO_PARALLELISM:-$((NCPU < 4 ? NCPU : 4))}"
log "building into ${OUT} with ${GOVERSION} (go build -p ${P}); ~2 min after hack/envtest, ~9 CPU-min cold"
run "downloading modules" go mod download

# Version stamping as hack/envtest/build.sh does (kubernetes' hack/lib/version.sh).
BUILD_DATE="$(go list -m -f '{{with .Time}}{{.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}' k8s.io/kubernetes)"
[[ -n "${BUILD_DATE}" ]] || BUILD_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
MINOR="${K8S_VERSION#v1.}"; MINOR="${MINOR%%.*}"
LDFLAGS="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDFLAGS+=" -X ${pkg}.gitVersion=${K8S_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${MINOR}"
  LDFLAGS+=" -X ${pkg}.gitCommit= -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=${BUILD_DATE}"
done

log "building pause..."
run "building pause" go build -p "${P}" -trimpath -buildvcs=false -ldflags="-s -w" -o "${TMP}/pause" ./cmd/pause
log "building kubelet (several minutes cold)..."
run "building kubelet" go build -p "${P}" -trimpath -buildvcs=false -ldflags="${LDFLAGS}" -o "${TMP}/kubelet" ./cmd/kubelet
"${TMP}/kubelet" --version >&2

# The pause image: one layer with /pause, entrypoint /pause, as registry.k8s.io/pause has.
log "making the pause image..."
LAYOUT="${TMP}/pause-layout"
umoci init --layout "${LAYOUT}"
umoci new --image "${LAYOUT}:${PAUSE_TAG}"
umoci unpack --image "${LAYOUT}:${PAUSE_TAG}" "${TMP}/pause-bundle" >&2
install -m 0755 "${TMP}/pause" "${TMP}/pause-bundle/rootfs/pause"
umoci repack --image "${LAYOUT}:${PAUSE_TAG}" "${TMP}/pause-bundle" >&2
umoci config --image "${LAYOUT}:${PAUSE_TAG}" --config.entrypoint /pause --config.user 65535:65535 \
  --architecture amd64 --os linux >&2
umoci gc --layout "${LAYOUT}"
tar -C "${LAYOUT}" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "${TMP}/pause.oci.tar" .
rm -rf "${LAYOUT}" "${TMP}/pause-bundle"

cat >"${TMP}/versions.txt" <<VERSIONS
kubernetes=${K8S_VERSION}
pause=${PAUSE_TAG}
go=${GOVERSION}
inputs=${INPUT_HASH}
VERSIONS

rm -rf "${OUT}"
mv "${TMP}" "${OUT}"
log "built the kubelet and the pause image in $((SECONDS - T0))s"
echo "${OUT}"
