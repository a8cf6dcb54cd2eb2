/**
 * The user data a real node of `--real-nodes` boots with: the state the legacy
 * cloud-config-downloader's provisioning leaves on a machine (its directory with the token,
 * credentials, script and last checksum; its unit, enabled in multi-user.target and started), so
 * that the node starts as a legacy node does and the agent's bootstrap migrates what is really
 * there (gardener v1.91.4 pkg/nodeagent/bootstrap/bootstrap.go: stop and disable the downloader,
 * remove its directory and unit). The image's cloud-init stand-in runs it once at boot
 * (hack/real-node/os/usr/lib/systemd/system/user-data.service).
 */
import { PATH, UNIT } from '../../api/index.js';
import { shellQuote } from '../../components/shell-quote.js';
import type { LegacyState } from './node.js';

export function legacyUserData(state: LegacyState): string {
  const lines = [
    '#!/bin/bash',
    "# the legacy cloud-config-downloader's state, as its provisioning leaves it (demo --real-nodes)",
    'set -o errexit',
    'set -o nounset',
    'set -o pipefail',
    '',
    'write() {',
    '  mkdir -p "$(dirname "$1")"',
    '  printf %s "$3" | base64 -d > "$1"',
    '  chmod "$2" "$1"',
    '}',
    '',
  ];
  const files = [
    ...state.files,
    { path: PATH.downloaderUnitFile, mode: 0o644, content: Buffer.from(state.unitContent) },
  ];
  for (const f of files)
    lines.push(
      `write ${shellQuote(f.path)} ${f.mode.toString(8)} ${shellQuote(f.content.toString('base64'))}`,
    );
  lines.push(
    `mkdir -p ${shellQuote(PATH.downloaderUnitWantsLink.slice(0, PATH.downloaderUnitWantsLink.lastIndexOf('/')))}`,
    `ln -sfn ${shellQuote(`../${UNIT.downloader}`)} ${shellQuote(PATH.downloaderUnitWantsLink)}`,
    'systemctl daemon-reload',
    // as on a legacy node, the downloader runs (here it cannot reach the API server by its name and
    // is restarted by its Restart=always) until the agent's bootstrap stops it
    `systemctl start --no-block ${shellQuote(UNIT.downloader)}`,
    '',
  );
  return lines.join('\n');
}
