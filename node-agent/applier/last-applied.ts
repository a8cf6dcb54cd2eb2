/**
 * `/var/lib/gardener-node-agent/last-applied-osc.yaml`: the OSC of the last completed apply, the
 * base of the next diff. Written atomically with 0600 (v1.111; v1.91 wrote 0644 in place).
 *
 * What it holds follows the OSC's contract, so that a node can switch between upstream's agent and
 * ours in either direction and each reads what the other left as its own (docs/compatibility.md
 * V150-25, V150-26):
 *  - a v1.91.4 OSC: the exact osc.yaml bytes, as gardener v1.91.4's agent writes them
 *    (pkg/nodeagent/controller/operatingsystemconfig/reconciler.go writes the secret's data);
 *  - an OSC that hands containerd to the agent (`criConfig.containerd`, the v1.150.0 contract):
 *    the decoded OSC with containerd's environment drop-in added, encoded again as Go writes it,
 *    as gardener v1.150.0's agent does (reconciler.go `runtime.Encode(nodeagent.Codec, osc)` after
 *    containerd.go `addContainerdEnvironmentDropIn`).
 * Either form is read back: the drop-in in it is replaced by the agent's own (V150-21).
 */
import { readFile, rm } from 'node:fs/promises';
import {
  decodeOperatingSystemConfig,
  formatFieldErrors,
  type OperatingSystemConfig,
  oscWire,
  PATH,
  stringifyYaml,
} from '../../api/index.js';
import { withContainerdEnvDropIn } from '../containerd/containerd-env-drop-in.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { HostRoot } from './host-root.js';

export const LAST_APPLIED_MODE = 0o600;

/**
 * Upstream v1.150.0's agent resumes an interrupted apply from this file (reconciler.go
 * `lastComputedOperatingSystemConfigChangesFilePath`). Once ours has applied, what it lists is
 * done or superseded: left behind, an agent switched back would redo it and restart units twice.
 */
export const UPSTREAM_COMPUTED_CHANGES = `${PATH.nodeAgentBaseDir}/last-computed-osc-changes.yaml`;

export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export async function readLastAppliedText(host: HostRoot): Promise<string | undefined> {
  return readTextIfExists(host.path(PATH.lastAppliedOsc));
}

/** The text last-applied-osc.yaml gets once `osc` (decoded from `oscText`) is applied. */
export function lastAppliedTextFor(oscText: string, osc: OperatingSystemConfig, agentPath: string): string {
  if (!osc.spec.criConfig?.containerd) return oscText;
  return stringifyYaml(oscWire(withContainerdEnvDropIn(osc, agentPath), 'v1.150.0'));
}

/**
 * The OSC last written, decoded: the next apply diffs against it, and decoding the same text again
 * would cost the largest single share of an update's CPU (YAML parsing). Keyed by the exact text,
 * so a file that changed on disk is decoded afresh.
 */
let remembered: { readonly text: string; readonly osc: OperatingSystemConfig } | undefined;

/** The previous OSC, or an explanation why it cannot be used. */
export function decodeLastApplied(text: string): { osc: OperatingSystemConfig } | { problem: string } {
  if (remembered?.text === text) return { osc: remembered.osc };
  const decoded = decodeOperatingSystemConfig(text);
  return decoded.ok ? { osc: decoded.value } : { problem: formatFieldErrors(decoded.errors) };
}

/**
 * Writes the text and removes upstream's computed changes; `osc` (what decoding exactly that text
 * gives, or undefined) is kept for the next `decodeLastApplied`.
 */
export async function writeLastApplied(
  host: HostRoot,
  text: string,
  osc?: OperatingSystemConfig,
): Promise<void> {
  const path = host.path(PATH.lastAppliedOsc);
  await host.prepareParent(path);
  await writeFileAtomic(path, text, LAST_APPLIED_MODE);
  remembered = osc ? { text, osc } : undefined;
  await rm(host.path(UPSTREAM_COMPUTED_CHANGES), { force: true });
}
