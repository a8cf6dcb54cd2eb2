/**
 * Gate off only: `fetch-token.sh` reads the `gardener-valitail` token secret from the shoot with
 * the cloud-config-downloader's credentials and stores the decoded token where valitail reads it
 * (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/original/components/valitail/component.go). With
 * the node agent its token controller does this instead.
 */
import { DATA_KEY, NAME, NAMESPACE_KUBE_SYSTEM, PATH } from '../../api/index.js';
import { shellQuote } from '../shell-quote.js';
import { VALITAIL_PATH } from './paths.js';

export function fetchTokenScript(): string {
  const q = shellQuote;
  return `#!/bin/bash
# Fetches valitail's access token from the shoot (secret ${NAMESPACE_KUBE_SYSTEM}/${NAME.valitail})
# with the cloud-config-downloader's credentials. valitail-fetch-token.service runs it every 300 s.
set -o errexit
set -o nounset
set -o pipefail

readonly credentials_token=${q(PATH.downloaderToken)}
readonly credentials_server=${q(PATH.downloaderServer)}
readonly credentials_ca=${q(PATH.downloaderCaBundle)}
readonly secret_path=${q(`/api/v1/namespaces/${NAMESPACE_KUBE_SYSTEM}/secrets/${NAME.valitail}`)}
readonly data_key=${q(DATA_KEY.token)}
readonly auth_token=${q(VALITAIL_PATH.authToken)}

server="$(<"$credentials_server")"
bearer="$(<"$credentials_token")"

# YAML keeps the data keys one per line ("  token: <base64>"), so no JSON parser is needed.
if ! secret="$(wget -qO- \\
  --header "Accept: application/yaml" \\
  --header "Authorization: Bearer $bearer" \\
  --ca-certificate "$credentials_ca" \\
  "$server$secret_path")"; then
  echo "Could not retrieve the valitail token secret" >&2
  exit 1
fi

encoded="$(sed -n "s/^  $data_key: *//p" <<<"$secret")"
if [[ -z "$encoded" ]]; then
  echo "The valitail token secret has no data key $data_key yet" >&2
  exit 1
fi

# Write the new token next to the old one and rename it into place: valitail never reads a
# half-written token, and a failed decode keeps the previous one.
mkdir -p "$(dirname "$auth_token")"
umask 077
tmp="$(mktemp "$auth_token.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
base64 -d <<<"$encoded" >"$tmp"
mv -f "$tmp" "$auth_token"
`;
}
