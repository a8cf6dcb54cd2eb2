/**
 * Flags for the node agent of a real node beyond what its rendered unit passes (e.g.
 * `--disruption-policy defaults`, `--drift-check-interval 2s`): a runtime drop-in of
 * gardener-node-agent.service under /run/systemd/system that replaces its ExecStart with the
 * rendered command line plus the flags. A runtime drop-in goes with the node and is nothing the
 * agent applied: the OSC's unit file and drop-ins keep their bytes, and drift detection, which
 * compares the drop-ins under /etc/systemd/system (node-agent/applier/drift-detect.ts), does not
 * count it. The caller restarts the agent to take the flags.
 */
import type { Container } from './container.js';

export const AGENT_FLAGS_DROP_IN =
  '/run/systemd/system/gardener-node-agent.service.d/90-real-node-flags.conf';

/** The rendered unit's ExecStart command line (a single ExecStart=, as every contract renders it). */
export function agentExecStart(unitContent: string): string {
  const lines = unitContent
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('ExecStart=') && l !== 'ExecStart=');
  if (lines.length !== 1) throw new Error(`the agent unit has ${lines.length} ExecStart= lines, not 1`);
  return lines[0]!.slice('ExecStart='.length);
}

export function agentFlagsDropIn(unitContent: string, flags: readonly string[]): string {
  for (const f of flags)
    if (!/^[A-Za-z0-9_./=:-]+$/.test(f)) throw new Error(`not a plain flag or value: ${JSON.stringify(f)}`);
  return `[Service]\nExecStart=\nExecStart=${[agentExecStart(unitContent), ...flags].join(' ')}\n`;
}

/** Writes the drop-in inside the node and reloads its systemd; the agent's next start takes the flags. */
export async function setAgentFlags(
  container: Container,
  unitContent: string,
  flags: readonly string[],
): Promise<void> {
  const dropIn = agentFlagsDropIn(unitContent, flags);
  await container.run([
    'sh',
    '-c',
    'mkdir -p "$(dirname "$1")" && printf %s "$2" > "$1" && systemctl daemon-reload',
    'sh',
    AGENT_FLAGS_DROP_IN,
    dropIn,
  ]);
}
