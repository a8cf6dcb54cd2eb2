#!/usr/bin/env bash
# Builds (once) upstream's own gardener-node-agent, github.com/gardener/gardener/cmd/gardener-node-agent
# at the version go.mod pins (v1.150.0), from its Go module. hack/bench/upstream-node-agent.ts runs it in
# the real node next to the project's agent (`--contract v1.150.0`). It goes into a content-addressed
# cache dir outside the work tree, and the LAST line on stdout is that dir. Everything else goes to
# stderr. Safe to run concurrently: the second caller waits for the first and then finds the cache.
#
#   dir="$(hack/upstream-node-agent-v150/build.sh | tail -n1)"; "$dir/gardener-node-agent" --help
#
# go.mod is tidied against tools.go, starting from hack/gardener-oracle-150's go.sum (same versions, so
# its module and build caches are warm). github.com/gardener/gardener/pkg/apis is a module of its own:
# go.mod pins it at v1.150.0, or Go would take the v1.149.0 that gardener v1.150.0's go.mod names.
# Needs Go >= 1.26.5 (the go directive of gardener v1.150.0). Not part of `npm test`.
#
# Environment:
#   XDG_CACHE_HOME                   cache root (default ~/.cache); the binary goes to
#                                    $XDG_CACHE_HOME/gardener-osc/upstream-node-agent/gardener-<v>-<hash>/
#   UPSTREAM_AGENT_GO_PARALLELISM    `go build -p` (default: number of CPUs, at most 4)
#   UPSTREAM_AGENT_FORCE_REBUILD=1   rebuild even if the cache dir is complete
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NAME=gardener-node-agent
PACKAGE=github.com/gardener/gardener/cmd/gardener-node-agent
# Bump when the build recipe (flags, ldflags) changes, to invalidate old caches.
RECIPE=1

log() { printf 'upstream-node-agent: %s\n' "$*" >&2; }
die() { printf 'upstream-node-agent: ERROR: %s\n' "$*" >&2; exit 1; }

GARDENER_VERSION="$(awk '$1=="require" && $2=="github.com/gardener/gardener" {print $3; exit} $1=="github.com/gardener/gardener" && $2 ~ /^v/ {print $2; exit}' "${HERE}/go.mod")"
[[ -n "${GARDENER_VERSION}" ]] || die "cannot read the github.com/gardener/gardener version from ${HERE}/go.mod"
APIS_VERSION="$(awk '$1=="github.com/gardener/gardener/pkg/apis" {print $2; exit}' "${HERE}/go.mod")"
[[ "${APIS_VERSION}" == "${GARDENER_VERSION}" ]] ||
  die "go.mod pins github.com/gardener/gardener/pkg/apis at '${APIS_VERSION}', not ${GARDENER_VERSION}"
GO_DIRECTIVE="$(awk '$1=="go" {print $2; exit}' "${HERE}/go.mod")"
GO_MINOR="$(cut -d. -f2 <<<"${GO_DIRECTIVE}")"

sha256() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi; }
INPUT_HASH="$(
  cd "${HERE}"
  { echo "recipe=${RECIPE}"; cat go.sum go.mod tools.go; } | sha256 | cut -c1-12
)"
CACHE_BASE="${XDG_CACHE_HOME:-${HOME}/.cache}/gardener-osc/upstream-node-agent"
OUT="${CACHE_BASE}/gardener-${GARDENER_VERSION}-${INPUT_HASH}"

complete() { [[ -f "${OUT}/${NAME}" && -x "${OUT}/${NAME}" && -s "${OUT}/versions.txt" ]]; }
if [[ "${UPSTREAM_AGENT_FORCE_REBUILD:-}" != 1 ]] && complete; then
  echo "${OUT}"
  exit 0
fi

command -v go >/dev/null 2>&1 || die "the Go toolchain ('go') is not on PATH: building gardener-node-agent ${GARDENER_VERSION} needs Go >= 1.${GO_MINOR} (tested with go1.26.8)"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0
GOVERSION="$(go env GOVERSION)"
if [[ "${GOVERSION}" =~ ^go1\.([0-9]+) ]] && ((BASH_REMATCH[1] < GO_MINOR)); then
  die "${GOVERSION} is too old: Go >= 1.${GO_MINOR} is needed (go.mod says go ${GO_DIRECTIVE})"
fi

mkdir -p "${CACHE_BASE}"
if command -v flock >/dev/null 2>&1; then
  exec 9>"${CACHE_BASE}/.lock"
  if ! flock -n 9; then
    log "another build holds ${CACHE_BASE}/.lock; waiting for it ..."
    flock 9
  fi
  if [[ "${UPSTREAM_AGENT_FORCE_REBUILD:-}" != 1 ]] && complete; then
    echo "${OUT}"
    exit 0
  fi
fi

TMP="$(mktemp -d "${CACHE_BASE}/.build-XXXXXX")"
chmod 755 "${TMP}"
# -mod=mod may touch go.mod/go.sum: build from a copy, so the work tree stays as committed.
SRC="${TMP}/src"
mkdir -p "${SRC}"
cp "${HERE}/go.mod" "${HERE}/go.sum" "${HERE}/tools.go" "${SRC}/"
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
# Runs "$@" in the background, printing a heartbeat every 30 s.
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

cd "${SRC}"
NCPU="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
P="${UPSTREAM_AGENT_GO_PARALLELISM:-$((NCPU < 4 ? NCPU : 4))}"
log "building ${PACKAGE}@${GARDENER_VERSION} into ${OUT} with ${GOVERSION} (go build -p ${P})"
run "downloading modules" go mod download
# The agent reports its version (component-base's gitVersion) like upstream's release build does.
LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=${GARDENER_VERSION}"
run "building ${NAME}" go build -p "${P}" -trimpath -buildvcs=false -ldflags="${LDFLAGS}" -o "${TMP}/${NAME}" "${PACKAGE}"
rm -rf "${SRC}"

cat >"${TMP}/versions.txt" <<VERSIONS
gardener=${GARDENER_VERSION}
go=${GOVERSION}
inputs=${INPUT_HASH}
VERSIONS

rm -rf "${OUT}"
mv "${TMP}" "${OUT}"
log "built ${NAME} ${GARDENER_VERSION} in $((SECONDS - T0))s"
echo "${OUT}"
