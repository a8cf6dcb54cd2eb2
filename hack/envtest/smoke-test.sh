#!/usr/bin/env bash
# Smoke test of the envtest binaries (and reference for the TypeScript harness):
# starts etcd + kube-apiserver under the supervisor on free loopback ports,
# checks /readyz, /version, a write round trip, static-token, bootstrap-token
# and audit logging, checks that the supervisor kills its server when its
# parent is SIGKILLed, then stops everything it started (by pid).
#
#   hack/envtest/smoke-test.sh [BIN_DIR]   (default: output of build.sh)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BIN="${1:-$("${HERE}/build.sh" | tail -n1)}"
K8S_VERSION="$(awk '$1=="k8s.io/kubernetes"{print $2; exit}' "${HERE}/go.mod")"

log() { printf 'smoke: %s\n' "$*" >&2; }
fail() { printf 'smoke: FAIL: %s\n' "$*" >&2; exit 1; }
now_ms() { date +%s%3N; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

W="$(mktemp -d)"
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -TERM "${p}" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "${p}" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "${p}" 2>/dev/null || true
  done
  if [[ "${KEEP_WORKDIR:-}" == 1 ]]; then log "work dir kept: ${W}"; else rm -rf "${W}"; fi
}
trap cleanup EXIT

ETCD_PORT="$(free_port)"
API_PORT="$(free_port)"
TOKEN="envtest-admin-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"

# --- inputs for kube-apiserver ---------------------------------------------------------
mkdir -p "${W}/etcd" "${W}/certs"
openssl genrsa -out "${W}/sa.key" 2048 2>/dev/null
openssl rsa -in "${W}/sa.key" -pubout -out "${W}/sa.pub" 2>/dev/null
# token,user,uid,"group1,group2"
echo "${TOKEN},envtest-admin,envtest-admin,\"system:masters\"" >"${W}/tokens.csv"
cat >"${W}/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
EOF

# --- etcd ------------------------------------------------------------------------------
t0="$(now_ms)"
"${BIN}/supervisor" -- "${BIN}/etcd" \
  --name=envtest \
  --data-dir="${W}/etcd" \
  --listen-client-urls="http://127.0.0.1:${ETCD_PORT}" \
  --advertise-client-urls="http://127.0.0.1:${ETCD_PORT}" \
  --listen-peer-urls=http://127.0.0.1:0 \
  --unsafe-no-fsync \
  --log-level=warn \
  >"${W}/etcd.log" 2>&1 &
PIDS+=($!)
until curl -fsS "http://127.0.0.1:${ETCD_PORT}/health" 2>/dev/null | grep -q '"health":"true"'; do
  kill -0 "${PIDS[0]}" 2>/dev/null || { cat "${W}/etcd.log" >&2; fail "etcd exited"; }
  (( $(now_ms) - t0 < 30000 )) || fail "etcd not healthy after 30s"
  sleep 0.05
done
log "etcd healthy on :${ETCD_PORT} after $(( $(now_ms) - t0 )) ms"

# --- kube-apiserver --------------------------------------------------------------------
t0="$(now_ms)"
"${BIN}/supervisor" -- "${BIN}/kube-apiserver" \
  --etcd-servers="http://127.0.0.1:${ETCD_PORT}" \
  --bind-address=127.0.0.1 \
  --advertise-address=127.0.0.1 \
  --secure-port="${API_PORT}" \
  --cert-dir="${W}/certs" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="${W}/sa.pub" \
  --service-account-signing-key-file="${W}/sa.key" \
  --token-auth-file="${W}/tokens.csv" \
  --authorization-mode=Node,RBAC \
  --enable-bootstrap-token-auth \
  --service-cluster-ip-range=10.0.0.0/24 \
  --disable-admission-plugins=ServiceAccount \
  --endpoint-reconciler-type=none \
  --audit-log-path="${W}/audit.log" \
  --audit-policy-file="${W}/audit-policy.yaml" \
  >"${W}/kube-apiserver.log" 2>&1 &
PIDS+=($!)
API="https://127.0.0.1:${API_PORT}"
k() { curl -ksS -H "Authorization: Bearer ${TOKEN}" "$@"; }
until [[ "$(k -o /dev/null -w '%{http_code}' "${API}/readyz" 2>/dev/null)" == 200 ]]; do
  kill -0 "${PIDS[1]}" 2>/dev/null || { tail -n 40 "${W}/kube-apiserver.log" >&2; fail "kube-apiserver exited"; }
  (( $(now_ms) - t0 < 120000 )) || { tail -n 40 "${W}/kube-apiserver.log" >&2; fail "not ready after 120s"; }
  sleep 0.1
done
log "kube-apiserver /readyz=200 on :${API_PORT} after $(( $(now_ms) - t0 )) ms"

version="$(k "${API}/version")"
echo "${version}" >&2
[[ "$(jq -r .gitVersion <<<"${version}")" == "${K8S_VERSION}" ]] || fail "/version is not ${K8S_VERSION}"

# the self-signed serving cert written to --cert-dir (leaf + its CA) verifies the server
curl -fsS --cacert "${W}/certs/apiserver.crt" -H "Authorization: Bearer ${TOKEN}" "${API}/version" >/dev/null \
  || fail "TLS verification with --cacert ${W}/certs/apiserver.crt"
# health/version endpoints are readable anonymously (system:public-info-viewer)
[[ "$(curl -ks "${API}/readyz")" == ok ]] || fail "anonymous /readyz"
log "TLS with --cacert cert-dir/apiserver.crt ok; anonymous /readyz ok"

# write round trip through etcd
k -f -X POST -H 'Content-Type: application/json' "${API}/api/v1/namespaces" \
  -d '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"smoke"}}' >/dev/null
k -f -X POST -H 'Content-Type: application/json' "${API}/api/v1/namespaces/smoke/configmaps" \
  -d '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"v"}}' >/dev/null
[[ "$(k -f "${API}/api/v1/namespaces/smoke/configmaps/cm" | jq -r .data.k)" == v ]] || fail "configmap round trip"
log "write round trip ok"

# anonymous requests are allowed (--anonymous-auth defaults to true) but not authorized
code="$(curl -ks -o /dev/null -w '%{http_code}' "${API}/api/v1/namespaces")"
[[ "${code}" == 403 ]] || fail "anonymous list namespaces: expected 403, got ${code}"

# bootstrap token (kube-system/bootstrap-token-<id>) authenticates as system:bootstrap:<id>
k -f -X POST -H 'Content-Type: application/json' "${API}/api/v1/namespaces/kube-system/secrets" -d '{
  "apiVersion":"v1","kind":"Secret","type":"bootstrap.kubernetes.io/token",
  "metadata":{"name":"bootstrap-token-abcdef"},
  "stringData":{"token-id":"abcdef","token-secret":"0123456789abcdef","usage-bootstrap-authentication":"true",
                "auth-extra-groups":"system:bootstrappers:envtest"}}' >/dev/null
who="$(curl -ksS -H 'Authorization: Bearer abcdef.0123456789abcdef' -X POST -H 'Content-Type: application/json' \
  "${API}/apis/authentication.k8s.io/v1/selfsubjectreviews" \
  -d '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' | jq -r .status.userInfo.username)"
[[ "${who}" == system:bootstrap:abcdef ]] || fail "bootstrap token auth: got '${who}'"
log "bootstrap token auth ok (${who})"

# pod creation works without a controller-manager (no default ServiceAccount exists)
k -f -X POST -H 'Content-Type: application/json' "${API}/api/v1/namespaces/smoke/pods" -d '{
  "apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},
  "spec":{"containers":[{"name":"c","image":"busybox"}]}}' >/dev/null
log "pod create ok"

sleep 1 # audit log is written by a buffered backend
grep -q '"level":"Metadata"' "${W}/audit.log" || fail "no Metadata audit events in ${W}/audit.log"
log "audit log ok ($(wc -l <"${W}/audit.log") events)"

# --- supervisor: the server dies with the supervisor's parent ----------------------------
P2="$(free_port)"
bash -c '"$1/supervisor" --grace=5s -- "$1/etcd" --data-dir="$2/etcd2" --listen-client-urls="http://127.0.0.1:$3" \
  --advertise-client-urls="http://127.0.0.1:$3" --listen-peer-urls=http://127.0.0.1:0 --unsafe-no-fsync \
  --log-level=error >"$2/etcd2.log" 2>&1 & echo $! >"$2/sup.pid"; wait' _ "${BIN}" "${W}" "${P2}" &
PARENT=$!
PIDS+=("${PARENT}")
until curl -fsS "http://127.0.0.1:${P2}/health" >/dev/null 2>&1; do sleep 0.05; done
SUP="$(cat "${W}/sup.pid")"; PIDS+=("${SUP}")
ETCD2="$(pgrep -P "${SUP}")"; PIDS+=("${ETCD2}")
t0="$(now_ms)"
kill -KILL "${PARENT}"
wait "${PARENT}" 2>/dev/null || true # reap quietly (no "Killed" job notice)
for _ in $(seq 100); do kill -0 "${ETCD2}" 2>/dev/null || break; sleep 0.1; done
kill -0 "${ETCD2}" 2>/dev/null && fail "etcd ${ETCD2} survived its supervisor's parent"
for _ in $(seq 50); do kill -0 "${SUP}" 2>/dev/null || break; sleep 0.1; done
kill -0 "${SUP}" 2>/dev/null && fail "supervisor ${SUP} survived its parent"
log "supervisor: parent SIGKILLed -> etcd gone after $(( $(now_ms) - t0 )) ms"

# --- supervisor SIGKILLed itself: its child gets Pdeathsig=SIGKILL -------------------------
"${BIN}/supervisor" -- sleep 300 &
SUP="$!"; PIDS+=("${SUP}")
until CHILD="$(pgrep -P "${SUP}")"; do sleep 0.05; done
PIDS+=("${CHILD}")
kill -KILL "${SUP}"
wait "${SUP}" 2>/dev/null || true
for _ in $(seq 50); do kill -0 "${CHILD}" 2>/dev/null || break; sleep 0.1; done
kill -0 "${CHILD}" 2>/dev/null && fail "child ${CHILD} survived SIGKILL of its supervisor"
log "supervisor: SIGKILLed supervisor -> child gone"

# --- clean shutdown: SIGTERM to the supervisor is forwarded, exit code propagated ----------
t0="$(now_ms)"
kill -TERM "${PIDS[1]}"
rc=0; wait "${PIDS[1]}" || rc=$?
log "kube-apiserver stopped via supervisor SIGTERM in $(( $(now_ms) - t0 )) ms (exit ${rc})"
kill -TERM "${PIDS[0]}"
rc=0; wait "${PIDS[0]}" || rc=$?
log "etcd stopped via supervisor SIGTERM (exit ${rc})"
log "OK"
