#!/bin/bash
# User data of OperatingSystemConfig "pool-provision" (purpose provision), rendered by os-local.
set -o errexit
set -o nounset
set -o pipefail
umask 0022

# Every path written below is prefixed with $OSC_LOCAL_ROOT: empty on a node, a directory in tests.
root="${OSC_LOCAL_ROOT:-}"

if [[ -e "$root"/var/lib/osc/provision-osc-applied ]]; then
  echo "Provision OSC already applied, exiting..."
  exit 0
fi

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
write_text /var/lib/gardener-node-agent/credentials/bootstrap-token 0640 <<'EOF_90e9769c11b0c656'
<<BOOTSTRAP_TOKEN>>
EOF_90e9769c11b0c656
write_b64 /var/lib/gardener-node-agent/init.sh 0755 <<'EOF_e1c8a9e7bdbb404c'
IyEvYmluL2Jhc2gKc2V0IC1vIGVycmV4aXQKc2V0IC1vIG5vdW5zZXQKc2V0IC1vIHBpcGVmYWls
CgppbWFnZT1ldXJvcGUtZG9ja2VyLnBrZy5kZXYvZ2FyZGVuZXItcHJvamVjdC9yZWxlYXNlcy9n
YXJkZW5lci9ub2RlLWFnZW50OnYxLjkxLjQKdG1wX2Rpcj0iJChta3RlbXAgLWQpIgpjdHIgaW1h
Z2VzIHB1bGwgIiRpbWFnZSIgLS1ob3N0cy1kaXIgIi9ldGMvY29udGFpbmVyZC9jZXJ0cy5kIgpj
dHIgaW1hZ2VzIG1vdW50ICIkaW1hZ2UiICIkdG1wX2RpciIKbWtkaXIgLXAgL29wdC9iaW4KY3Ag
LWYgIiR0bXBfZGlyL2dhcmRlbmVyLW5vZGUtYWdlbnQiIC9vcHQvYmluL2dhcmRlbmVyLW5vZGUt
YWdlbnQKZXhlYyAvb3B0L2Jpbi9nYXJkZW5lci1ub2RlLWFnZW50IGJvb3RzdHJhcCAtLWNvbmZp
Zz0vdmFyL2xpYi9nYXJkZW5lci1ub2RlLWFnZW50L2NvbmZpZy55YW1sCg==
EOF_e1c8a9e7bdbb404c
write_b64 /var/lib/gardener-node-agent/config.yaml 0600 <<'EOF_d1893480e183c861'
YXBpVmVyc2lvbjogbm9kZWFnZW50LmNvbmZpZy5nYXJkZW5lci5jbG91ZC92MWFscGhhMQpraW5k
OiBOb2RlQWdlbnRDb25maWd1cmF0aW9uCg==
EOF_d1893480e183c861
write_b64 /var/lib/gardener-user/run.sh 0755 <<'EOF_982da36055a3f18f'
IyEvYmluL2Jhc2gKaWQgZ2FyZGVuZXIgfHwgdXNlcmFkZCBnYXJkZW5lciAtbVUK
EOF_982da36055a3f18f

# Units and drop-ins
write_b64 /etc/systemd/system/gardener-node-init.service 0644 <<'EOF_8b13a0ffa371a64f'
W1VuaXRdCkRlc2NyaXB0aW9uPURvd25sb2FkcyB0aGUgZ2FyZGVuZXItbm9kZS1hZ2VudCBiaW5h
cnkgZnJvbSB0aGUgY29udGFpbmVyIHJlZ2lzdHJ5IGFuZCBib290c3RyYXBzIGl0LgpBZnRlcj1u
ZXR3b3JrLW9ubGluZS50YXJnZXQKV2FudHM9bmV0d29yay1vbmxpbmUudGFyZ2V0CltTZXJ2aWNl
XQpUeXBlPW9uZXNob3QKUmVzdGFydD1vbi1mYWlsdXJlClJlc3RhcnRTZWM9NQpTdGFydExpbWl0
QnVyc3Q9MApFbnZpcm9ubWVudEZpbGU9L2V0Yy9lbnZpcm9ubWVudApFeGVjU3RhcnQ9L3Zhci9s
aWIvZ2FyZGVuZXItbm9kZS1hZ2VudC9pbml0LnNoCltJbnN0YWxsXQpXYW50ZWRCeT1tdWx0aS11
c2VyLnRhcmdldA==
EOF_8b13a0ffa371a64f
write_b64 /etc/systemd/system/gardener-user.service 0644 <<'EOF_32a8d89ec3f664de'
W1NlcnZpY2VdCkV4ZWNTdGFydD0vdmFyL2xpYi9nYXJkZW5lci11c2VyL3J1bi5zaA==
EOF_32a8d89ec3f664de

systemctl daemon-reload

# Units: enable or disable, restart or stop
systemctl enable -- gardener-node-init.service
systemctl restart --no-block -- gardener-node-init.service
systemctl enable -- gardener-user.service
systemctl restart --no-block -- gardener-user.service

mkdir -p -- "$root"/var/lib/osc
touch -- "$root"/var/lib/osc/provision-osc-applied
