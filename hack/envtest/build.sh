#!/usr/bin/env bash
# Builds (once) the envtest server binaries from the Go module in this directory:
#   kube-apiserver  k8s.io/kubernetes/cmd/kube-apiserver/app (version-stamped)
#   etcd            go.etcd.io/etcd/server/v3/etcdmain
#   supervisor      ./cmd/supervisor (kills the servers when the test run dies)
# into a content-addressed cache dir outside the work tree, and prints that
# dir as the LAST line on stdout. Everything else goes to stderr.
#
#   dir="$(hack/envtest/build.sh | tail -n1)"
#
# Environment:
#   XDG_CACHE_HOME   cache root (default ~/.cache); binaries go to
#                    $XDG_CACHE_HOME/gardener-osc/envtest/k8s-<v>_etcd-<v>-<hash>/
#   ENVTEST_GO_PARALLELISM  `go build -p` (default: number of CPUs, at most 4)
#   ENVTEST_FORCE_REBUILD=1 rebuild even if the cache dir is complete
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BINARIES=(kube-apiserver etcd supervisor)
# Bump when the build recipe (flags, ldflags) changes, to invalidate old caches.
RECIPE=1

log() { printf 'envtest: %s\n' "$*" >&2; }
die() { printf 'envtest: ERROR: %s\n' "$*" >&2; exit 1; }

modver() { awk -v m="$1" '$1==m && $2 ~ /^v/ {print $2; exit}' "${HERE}/go.mod"; }
K8S_VERSION="$(modver k8s.io/kubernetes)"
ETCD_VERSION="$(modver go.etcd.io/etcd/server/v3)"
[[ -n "${K8S_VERSION}" && -n "${ETCD_VERSION}" ]] || die "cannot read versions from ${HERE}/go.mod"

sha256() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi; }
# Cache key: go.sum (all module contents) + go.mod + our own sources + recipe version.
INPUT_HASH="$(
  cd "${HERE}"
  { echo "recipe=${RECIPE}"; cat go.sum go.mod; find cmd -type f -name '*.go' | LC_ALL=C sort | xargs cat; } | sha256 | cut -c1-12
)"
CACHE_BASE="${XDG_CACHE_HOME:-${HOME}/.cache}/gardener-osc/envtest"
OUT="${CACHE_BASE}/k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}-${INPUT_HASH}"

complete() {
  local b
  for b in "${BINARIES[@]}"; do [[ -f "${OUT}/${b}" && -x "${OUT}/${b}" ]] || return 1; done
}
if [[ "${ENVTEST_FORCE_REBUILD:-}" != 1 ]] && complete; then
  echo "${OUT}"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  die "the Go toolchain ('go') is not on PATH. Building kube-apiserver ${K8S_VERSION} and etcd ${ETCD_VERSION}
  for the envtest suite needs Go >= 1.26 (built and tested with go1.26.8). Install it, e.g.
  from https://go.dev/dl/ (tar -C /usr/local -xzf go1.26.*.linux-amd64.tar.gz; export PATH=/usr/local/go/bin:\$PATH)
  or your distribution's golang package, then re-run: ${HERE}/build.sh"
fi
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0
GOVERSION="$(go env GOVERSION)"
if [[ "${GOVERSION}" =~ ^go1\.([0-9]+) ]]; then
  if ((BASH_REMATCH[1] < 24)); then
    die "${GOVERSION} is too old: Go >= 1.26 is needed (go.mod requires >= 1.24; tested with go1.26.8)."
  elif ((BASH_REMATCH[1] < 26)); then
    log "warning: ${GOVERSION} is older than the tested go1.26.x; trying anyway"
  fi
fi

mkdir -p "${CACHE_BASE}"
# Serialise concurrent builds (parallel test runs): the second one waits, then finds the cache.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${CACHE_BASE}/.lock"
  if ! flock -n 9; then
    log "another build is running; waiting for ${CACHE_BASE}/.lock ..."
    flock 9
  fi
  if [[ "${ENVTEST_FORCE_REBUILD:-}" != 1 ]] && complete; then
    echo "${OUT}"
    exit 0
  fi
fi

TMP="$(mktemp -d "${CACHE_BASE}/.build-XXXXXX")"
chmod 755 "${TMP}"
CHILD=""
cleanup() {
  # The build runs in its own process group: take the compiler/linker children down with it.
  [[ -n "${CHILD}" ]] && kill -TERM -- "-${CHILD}" 2>/dev/null || true
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
  set -m # own process group, so cleanup can signal go *and* its compile/link children
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
P="${ENVTEST_GO_PARALLELISM:-$((NCPU < 4 ? NCPU : 4))}"
log "building into ${OUT} with ${GOVERSION} (go build -p ${P}); first build takes ~10 min"

log "downloading modules..."
run "downloading modules" go mod download

# Version stamping exactly like kubernetes' hack/lib/version.sh, so /version reports
# the release instead of v0.0.0-master. The release commit is not available from the
# module proxy, so gitCommit stays empty; buildDate is the tag time of the module
# (reproducible builds).
BUILD_DATE="$(go list -m -f '{{with .Time}}{{.UTC.Format "2006-01-02T15:04:05Z"}}{{end}}' k8s.io/kubernetes)"
[[ -n "${BUILD_DATE}" ]] || BUILD_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
MINOR="${K8S_VERSION#v1.}"; MINOR="${MINOR%%.*}"
LDFLAGS="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDFLAGS+=" -X ${pkg}.gitVersion=${K8S_VERSION} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${MINOR}"
  LDFLAGS+=" -X ${pkg}.gitCommit= -X ${pkg}.gitTreeState=clean -X ${pkg}.buildDate=${BUILD_DATE}"
done

build() {
  local name="$1" note="$2"
  log "building ${name}${note}..."
  run "building ${name}" go build -p "${P}" -trimpath -buildvcs=false -ldflags="${LDFLAGS}" \
    -o "${TMP}/${name}" "./cmd/${name}"
}
build supervisor ""
build etcd " (a few minutes)"
build kube-apiserver " (this takes several minutes)"

"${TMP}/kube-apiserver" --version >&2
"${TMP}/etcd" --version >&2
cat >"${TMP}/versions.txt" <<EOF
kubernetes=${K8S_VERSION}
etcd=${ETCD_VERSION}
go=${GOVERSION}
inputs=${INPUT_HASH}
EOF

# Atomically publish the directory.
rm -rf "${OUT}"
mv "${TMP}" "${OUT}"
log "built all binaries in $((SECONDS - T0))s"
echo "${OUT}"
