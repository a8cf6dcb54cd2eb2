/**
 * `update-local-ca-certificates.sh` of the Gardener v1.150.0 contract, upstream's bytes (gardener
 * v1.150.0
 * pkg/component/extensions/operatingsystemconfig/original/components/rootcertificates/templates/scripts/update-local-ca-certificates.tpl.sh).
 * v1.150.0 fixed what made the v1.91.4 script ours (docs/compatibility.md row 23: it copies the
 * distribution's CAs only when there are any) and learned Flatcar, which needs `.pem` files in
 * /etc/ssl/certs and has no `--fresh`.
 */
export function updateLocalCaCertificatesScriptV150(localCertsDir: string): string {
  return `#!/bin/bash

set -o errexit
set -o nounset
set -o pipefail

if [[ -f "/etc/debian_version" ]]; then
    mkdir -p "${localCertsDir}"
    if [[ -d "/usr/local/share/ca-certificates" && -n "$(ls -A '/usr/local/share/ca-certificates')" ]]; then
        cp -af /usr/local/share/ca-certificates/* "${localCertsDir}"
    fi
    /usr/sbin/update-ca-certificates --fresh --localcertsdir "${localCertsDir}"
elif grep -q flatcar "/etc/os-release"; then
    for f in "${localCertsDir}"/*.crt; do
        [ -f "$f" ] && cp "$f" "/etc/ssl/certs/$(basename "\${f%.crt}").pem"
    done
    /usr/sbin/update-ca-certificates
else
    /usr/sbin/update-ca-certificates --fresh
fi
`;
}
