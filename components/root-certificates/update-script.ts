/**
 * `update-local-ca-certificates.sh`: rebuilds the node's trust store so it includes Gardener's CA
 * bundle (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/rootcertificates/component.go).
 * Debian-like systems take local CAs from a directory of our choosing, because /usr is read-only on
 * some of them (Garden Linux); other systems read /etc/pki/trust/anchors.
 */
import { shellQuote } from '../shell-quote.js';

export function updateLocalCaCertificatesScript(localCertsDir: string): string {
  return `#!/bin/bash
set -o errexit
set -o nounset
set -o pipefail

readonly local_certs_dir=${shellQuote(localCertsDir)}
readonly distribution_certs_dir=/usr/local/share/ca-certificates

if [[ -f /etc/debian_version ]]; then
  # --localcertsdir replaces the distribution's local directory, so carry its certificates over.
  mkdir -p "$local_certs_dir"
  shopt -s nullglob dotglob
  distribution_certs=("$distribution_certs_dir"/*)
  if ((\${#distribution_certs[@]} > 0)); then
    cp -af "\${distribution_certs[@]}" "$local_certs_dir/"
  fi
  exec /usr/sbin/update-ca-certificates --fresh --localcertsdir "$local_certs_dir"
fi

exec /usr/sbin/update-ca-certificates --fresh
`;
}
