#!/bin/bash
# User data of OperatingSystemConfig "pool-reconcile" (purpose reconcile), rendered by os-local.
set -o errexit
set -o nounset
set -o pipefail
umask 0022

# Every path written below is prefixed with $OSC_LOCAL_ROOT: empty on a node, a directory in tests.
root="${OSC_LOCAL_ROOT:-}"

# Creates the parent directory of $root$1 and prints a new temporary file (mode 0600) in it.
# (No dirname: a command substitution would drop trailing newlines of a directory name.)
new_temp() {
  local dir="$root${1%/*}"
  mkdir -p -- "${dir:-/}"
  mktemp -- "$dir/.os-local.XXXXXX"
}

# Gives the temporary file $1 the mode $3 and moves it to $root$2.
commit() {
  chmod -- "$3" "$1"
  mv -fT -- "$1" "$root$2"
}

# write_b64 PATH MODE: the base64 text on stdin, decoded, becomes the file.
write_b64() {
  local tmp
  tmp="$(new_temp "$1")"
  if ! base64 -d >"$tmp"; then
    rm -f -- "$tmp"
    return 1
  fi
  commit "$tmp" "$1" "$2"
}

# write_text PATH MODE: the text on stdin, without the newline the here-document adds, becomes the file.
write_text() {
  local tmp text
  tmp="$(new_temp "$1")"
  IFS= read -r -d '' text || true
  printf '%s' "${text%$'\n'}" >"$tmp"
  commit "$tmp" "$1" "$2"
}

# Files
write_b64 /var/lib/kubelet/config/kubelet 0644 <<'EOF_e50e460c5f2a2427'
a2luZDogS3ViZWxldENvbmZpZ3VyYXRpb24K
EOF_e50e460c5f2a2427
# "/opt/bin/kubelet" comes from image "europe-docker.pkg.dev/gardener-project/releases/hyperkube:v1.30.5": gardener-node-agent writes it
write_b64 /etc/sysctl.d/99-k8s-general.conf 0644 <<'EOF_bc87c789cf5fbf16'
dm0ubWF4X21hcF9jb3VudCA9IDEzNTIxNzcyOAo=
EOF_bc87c789cf5fbf16
write_b64 /opt/bin/init-containerd 1350 <<'EOF_d0a4d119e2a01dff'
IyEvYmluL2Jhc2gKZWNobyBpbml0Cg==
EOF_d0a4d119e2a01dff

# Units and drop-ins
write_b64 /etc/systemd/system/kubelet.service 0644 <<'EOF_2a65d006c79be6c8'
W1VuaXRdCkRlc2NyaXB0aW9uPWt1YmVsZXQgZGFlbW9uCltTZXJ2aWNlXQpFeGVjU3RhcnQ9L29w
dC9iaW4va3ViZWxldCAtLWNvbmZpZz0vdmFyL2xpYi9rdWJlbGV0L2NvbmZpZy9rdWJlbGV0CltJ
bnN0YWxsXQpXYW50ZWRCeT1tdWx0aS11c2VyLnRhcmdldA==
EOF_2a65d006c79be6c8
write_b64 /etc/systemd/system/kubelet.service.d/10-env.conf 0644 <<'EOF_09b857d7f77e38d3'
W1NlcnZpY2VdCkVudmlyb25tZW50PSJLVUJFTEVUX0VYVFJBX0FSR1M9LS12PTIi
EOF_09b857d7f77e38d3
write_b64 /etc/systemd/system/containerd.service.d/10-require-containerd-initializer.conf 0644 <<'EOF_c2797968bb2d5b14'
W1VuaXRdCkFmdGVyPWNvbnRhaW5lcmQtaW5pdGlhbGl6ZXIuc2VydmljZQ==
EOF_c2797968bb2d5b14
write_b64 /etc/systemd/system/gardener-node-agent.service 0644 <<'EOF_fe26d10d5d37fced'
W1NlcnZpY2VdCkV4ZWNTdGFydD0vb3B0L2Jpbi9nYXJkZW5lci1ub2RlLWFnZW50
EOF_fe26d10d5d37fced

systemctl daemon-reload
