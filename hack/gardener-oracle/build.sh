#!/usr/bin/env bash
# Builds (once) the gardener-oracle: a Go program on github.com/gardener/gardener (the version
# go.mod pins) that answers contract questions with Gardener's own code (see main.go, README.md).
# It goes into a content-addressed cache dir outside the work tree, and the LAST line on stdout is
# that dir. Everything else goes to stderr. Idempotent and safe to run concurrently: the second
# caller waits for the first and then finds the cache.
#
#   dir="$(hack/gardener-oracle/build.sh | tail -n1)"; "$dir/gardener-oracle" < requests.jsonl
#
# Environment:
#   XDG_CACHE_HOME          cache root (default ~/.cache); the binary goes to
#                           $XDG_CACHE_HOME/gardener-osc/gardener-oracle/gardener-<v>-<hash>/
#   ORACLE_GO_PARALLELISM   `go build -p` (default: number of CPUs, at most 4)
#   ORACLE_FORCE_REBUILD=1  rebuild even if the cache dir is complete
#   ORACLE_SOURCE_DIR, ORACLE_NAME
#                           another oracle's Go module and binary name (default: this directory,
#                           gardener-oracle); hack/gardener-oracle-150/build.sh sets them
set -euo pipefail

HERE="${ORACLE_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}"
NAME="${ORACLE_NAME:-gardener-oracle}"
# Bump when the build recipe (flags, ldflags) changes, to invalidate old caches.
RECIPE=1

log() { printf '%s: %s\n' "${NAME}" "$*" >&2; }
die() { printf '%s: ERROR: %s\n' "${NAME}" "$*" >&2; exit 1; }

GARDENER_VERSION="$(awk '$1=="github.com/gardener/gardener" && $2 ~ /^v/ {print $2; exit}' "${HERE}/go.mod")"
[[ -n "${GARDENER_VERSION}" ]] || die "cannot read the github.com/gardener/gardener version from ${HERE}/go.mod"
# The Go floor is the module's `go` directive (1.22.0 for v1.91.4, 1.26.5 for v1.150.0); with
# GOTOOLCHAIN=local a newer directive fails the build instead of downloading a toolchain.
GO_DIRECTIVE="$(awk '$1=="go" {print $2; exit}' "${HERE}/go.mod")"
GO_MINOR="$(cut -d. -f2 <<<"${GO_DIRECTIVE}")"

sha256() { if command -v sha256sum >/dev/null; then sha256sum; else shasum -a 256; fi; }
# Cache key: go.sum (all module contents) + go.mod + our sources + the recipe version.
INPUT_HASH="$(
  cd "${HERE}"
  { echo "recipe=${RECIPE}"; cat go.sum go.mod; find . -maxdepth 1 -type f -name '*.go' | LC_ALL=C sort | xargs cat; } | sha256 | cut -c1-12
)"
CACHE_BASE="${XDG_CACHE_HOME:-${HOME}/.cache}/gardener-osc/${NAME}"
OUT="${CACHE_BASE}/gardener-${GARDENER_VERSION}-${INPUT_HASH}"

complete() { [[ -f "${OUT}/${NAME}" && -x "${OUT}/${NAME}" ]]; }
if [[ "${ORACLE_FORCE_REBUILD:-}" != 1 ]] && complete; then
  echo "${OUT}"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  die "the Go toolchain ('go') is not on PATH. The compatibility tests (test/compat) run Gardener
  ${GARDENER_VERSION}'s own code, built from its Go module; that needs Go >= 1.${GO_MINOR} (tested with
  go1.26.8). Install it, e.g. from https://go.dev/dl/ (tar -C /usr/local -xzf go1.*.linux-amd64.tar.gz;
  export PATH=/usr/local/go/bin:\$PATH) or your distribution's package (Debian: apt-get install
  golang-go), then re-run: ${HERE}/build.sh"
fi
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0
GOVERSION="$(go env GOVERSION)"
if [[ "${GOVERSION}" =~ ^go1\.([0-9]+) ]] && ((BASH_REMATCH[1] < GO_MINOR)); then
  die "${GOVERSION} is too old: Go >= 1.${GO_MINOR} is needed (go.mod says go ${GO_DIRECTIVE}; tested with go1.26.8)."
fi

mkdir -p "${CACHE_BASE}"
# Serialise concurrent builds: the second caller says who holds the lock, waits, then takes the
# cached result. The holder writes its pid and start time next to the lock.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${CACHE_BASE}/.lock"
  if ! flock -n 9; then
    holder="$(cat "${CACHE_BASE}/.lock.holder" 2>/dev/null || echo 'an unknown process')"
    log "another build holds ${CACHE_BASE}/.lock (${holder}); waiting for it ..."
    flock 9
  fi
  if [[ "${ORACLE_FORCE_REBUILD:-}" != 1 ]] && complete; then
    echo "${OUT}"
    exit 0
  fi
  printf 'pid %s (%s), started %s\n' "$$" "${0}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"${CACHE_BASE}/.lock.holder"
fi

TMP="$(mktemp -d "${CACHE_BASE}/.build-XXXXXX")"
chmod 755 "${TMP}"
CHILD=""
cleanup() {
  # The build runs in its own process group: take the compiler/linker children down with it.
  if [[ -n "${CHILD}" ]]; then kill -TERM -- "-${CHILD}" 2>/dev/null || true; fi
  rm -rf "${TMP}"
  rm -f "${CACHE_BASE}/.lock.holder"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

T0=${SECONDS}
# Runs "$@" in the background, printing a heartbeat with the elapsed time every 30 s.
run() {
  local what="$1"; shift
  local start=${SECONDS} n=0
  set -m
  "$@" >&2 &
  CHILD=$!
  set +m
  while kill -0 "${CHILD}" 2>/dev/null; do
    sleep 1
    if (( ++n % 30 == 0 )); then log "  ... still ${what} ($((SECONDS - start))s, $((SECONDS - T0))s in total)"; fi
  done
  local rc=0
  wait "${CHILD}" || rc=$?
  CHILD=""
  ((rc == 0)) || die "${what} failed (exit ${rc}) after $((SECONDS - start))s"
  log "  done ${what} in $((SECONDS - start))s"
}

cd "${HERE}"
NCPU="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
P="${ORACLE_GO_PARALLELISM:-$((NCPU < 4 ? NCPU : 4))}"
log "building Gardener ${GARDENER_VERSION}'s oracle into ${OUT} with ${GOVERSION} (go build -p ${P}); a cold build takes ~4-7 min"

run "downloading modules" go mod download
# gardenlet names the node agent's image tag after its own version (component-base's gitVersion).
LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=${GARDENER_VERSION}"
run "building ${NAME}" go build -p "${P}" -trimpath -buildvcs=false -ldflags="${LDFLAGS}" -o "${TMP}/${NAME}" .

cat >"${TMP}/versions.txt" <<EOF
gardener=${GARDENER_VERSION}
go=${GOVERSION}
inputs=${INPUT_HASH}
EOF

# Atomically publish the directory.
rm -rf "${OUT}"
mv "${TMP}" "${OUT}"
log "built ${NAME} in $((SECONDS - T0))s"
echo "${OUT}"
