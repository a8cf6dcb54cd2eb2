/**
 * `/var/lib/gardener-node-agent/init.sh` (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/nodeinit/nodeinit.go), our own: pull the node
 * agent image with containerd's `ctr`, copy its binary to /opt/bin, unmount, then hand over to
 * `gardener-node-agent bootstrap`. The image is shell-quoted (upstream HTML-escapes it, which
 * breaks references with `+`, see docs/compatibility.md), and the image is unmounted before the
 * `exec` (a trap on EXIT does not run across exec).
 */
import { PATH } from '../../api/index.js';
import { shellQuote } from '../shell-quote.js';

export function nodeInitScript(image: string): string {
  return `#!/bin/bash
set -o errexit
set -o nounset
set -o pipefail

image=${shellQuote(image)}
binary_directory=${shellQuote(PATH.binaryDir)}
config_file=${shellQuote(PATH.nodeAgentConfig)}

tmp_dir="$(mktemp -d)"
unmount() {
  ctr images unmount "$tmp_dir" >/dev/null 2>&1 || true
  rm -rf "$tmp_dir"
}
trap unmount EXIT

echo "> Pulling the gardener-node-agent image $image"
ctr images pull "$image" --hosts-dir "/etc/containerd/certs.d"
ctr images mount "$image" "$tmp_dir"

echo "> Installing the gardener-node-agent binary into $binary_directory"
mkdir -p "$binary_directory"
cp -f "$tmp_dir/gardener-node-agent" "$binary_directory/gardener-node-agent.tmp"
chmod 0755 "$binary_directory/gardener-node-agent.tmp"
mv -f "$binary_directory/gardener-node-agent.tmp" "$binary_directory/gardener-node-agent"

unmount
trap - EXIT

echo "> Bootstrapping gardener-node-agent"
exec "$binary_directory/gardener-node-agent" bootstrap --config="$config_file"
`;
}
