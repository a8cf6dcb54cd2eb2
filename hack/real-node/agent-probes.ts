/** The agent on a real node, observed and disturbed from outside through its own systemd. */
import { existsSync } from 'node:fs';
import { sleep } from '../landscape/eventually.js';
import type { NodeBarriers } from './barriers.js';
import type { Container } from './container.js';
import { showUnits } from './systemd-state.js';

export const AGENT_UNIT = 'gardener-node-agent.service';
const PROGRESS_FILE = '/var/lib/gardener-node-agent/apply-progress.yaml';

/** GET http://127.0.0.1:<port><path> inside the node (its loopback is its own), with the node's perl. */
export async function httpGetInside(container: Container, port: number, path: string): Promise<string> {
  const script = `use IO::Socket::INET; my $s = IO::Socket::INET->new("127.0.0.1:${port}") or die "connect: $!\\n";
print $s "GET ${path} HTTP/1.0\\r\\nHost: 127.0.0.1\\r\\n\\r\\n"; local $/; my $r = <$s>; $r =~ s/^.*?\\r\\n\\r\\n//s; print $r;`;
  return container.run(['perl', '-e', script]);
}

/** The value of one sample of the agent's /metrics (port 2752 as the rendered config leaves it). */
export async function agentMetric(container: Container, sample: string): Promise<number> {
  const text = await httpGetInside(container, 2752, '/metrics');
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

export async function agentMainPid(container: Container): Promise<number> {
  const p = (await showUnits(container, [AGENT_UNIT], ['MainPID', 'ActiveState'])).get(AGENT_UNIT)!;
  return p.ActiveState === 'active' ? Number(p.MainPID) : 0;
}

/** The unit jobs systemd is running now, e.g. `valitail.service restart`. */
export async function runningJobs(container: Container): Promise<string[]> {
  const out = await container.run(['systemctl', 'list-jobs', '--no-legend', '--no-pager']);
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 4 && f[3] === 'running')
    .map((f) => `${f[1]} ${f[2]}`);
}

export function applyInFlight(container: Container): boolean {
  return existsSync(container.path(PROGRESS_FILE));
}

export interface Kill {
  readonly at: string;
  readonly pid: number;
}

/**
 * Waits until the agent (or the stand-in whose stop it waits for) holds at the armed barrier
 * `name`, SIGKILLs the agent's processes through systemd (`systemctl kill`, as the kernel's OOM
 * killer or an operator would) while it is held there, checks `whileHeld` first, then releases the
 * barrier; systemd restarts the agent (Restart=always). Resolves once the new agent runs.
 */
export async function killAgentHeldAt(
  container: Container,
  barriers: NodeBarriers,
  name: string,
  at: string,
  whileHeld?: () => Promise<void>,
  timeoutMs = 60_000,
): Promise<Kill> {
  const deadline = Date.now() + timeoutMs;
  await barriers.held(name, at, timeoutMs);
  await whileHeld?.();
  const pid = await agentMainPid(container);
  await container.run(['systemctl', 'kill', '--signal=SIGKILL', '--', AGENT_UNIT]);
  barriers.release(name);
  for (;;) {
    const now = await agentMainPid(container);
    if (now !== 0 && now !== pid) return { at, pid };
    if (Date.now() > deadline)
      throw new Error(`systemd did not start the agent again after the kill at "${at}"`);
    await sleep(200);
  }
}
