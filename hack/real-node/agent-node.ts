/**
 * One real node of the example shoot's pool whose agent runs with extra flags, shared by the cases
 * of a test file: boots it as real-node.test.ts does, waits for the first apply, restarts the
 * agent with the flags (hack/real-node/agent-flags.ts), and publishes OSCs as gardenlet would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { ANNOTATION, type OperatingSystemConfig, sha256Hex } from '../../api/index.js';
import { buildNodeAgent } from '../build-node-agent.js';
import { type Envtest, startEnvtest } from '../landscape/envtest.js';
import { eventually } from '../landscape/eventually.js';
import { setAgentFlags } from './agent-flags.js';
import { AGENT_UNIT, agentMainPid, httpGetInside } from './agent-probes.js';
import { realNodeCache } from './cache.js';
import type { Container } from './container.js';
import { type HostSnapshot, hostDifferences, hostSnapshot } from './host-state.js';
import { type NodeUnderTest, provisionNode } from './node-under-test.js';
import { decodeOsc, unitContent } from './osc-edits.js';
import { reapStaleNodes } from './runs.js';
import { type ShootForNodes, setUpShoot } from './shoot.js';
import { journalCursor, showUnits, type UnitStart, unitStartsSince } from './systemd-state.js';

/** Units of the image itself, which no apply of the agent may touch unless a rule names them. */
export const OS_UNITS = [
  'containerd.service',
  'ssh.service',
  'dbus.service',
  'systemd-journald.service',
  'systemd-sysctl.service',
  'cron.service',
];

export type Invocations = Map<string, string | undefined>;

export class AgentNode {
  readonly name = `real-node-${Date.now().toString(36)}`;
  envtest!: Envtest;
  shoot!: ShootForNodes;
  core!: CoreV1Api;
  node: NodeUnderTest | undefined;
  c!: Container;
  /** The OSC the node has applied last. */
  osc!: OperatingSystemConfig;
  private buildDir: string | undefined;
  private host!: HostSnapshot;

  /** Boots the node, waits for its first apply, then runs the agent with `flags`. */
  async start(envtestName: string, flags: readonly string[]): Promise<void> {
    reapStaleNodes();
    this.host = hostSnapshot();
    realNodeCache();
    this.buildDir = mkdtempSync(join(tmpdir(), 'real-node-agent-'));
    const [started, build] = await Promise.all([
      startEnvtest({ name: envtestName }),
      buildNodeAgent({ outDir: this.buildDir }),
    ]);
    this.envtest = started;
    this.core = started.kubeConfig.makeApiClient(CoreV1Api);
    this.shoot = await setUpShoot(started);
    this.osc = decodeOsc(this.shoot.oscYaml);
    this.node = await provisionNode({
      name: this.name,
      shoot: this.shoot,
      envtest: started,
      agentBinary: build.binary,
    });
    this.c = this.node.container;
    await this.applied(sha256Hex(this.shoot.oscYaml));
    await this.restartAgentWith(flags);
  }

  async stop(): Promise<void> {
    await this.node?.stop();
    this.node = undefined;
    await this.shoot?.cleanup();
    if (this.buildDir) rmSync(this.buildDir, { recursive: true, force: true });
  }

  /** Stops the node and returns what it left on the host (empty: left as found). */
  async hostLeftovers(): Promise<string[]> {
    const { leader, nspawnPid } = this.c;
    const { nodeDir } = this.node!.node;
    await this.node!.stop();
    this.node = undefined;
    return hostDifferences(this.host, hostSnapshot(), {
      name: this.name,
      nodeDir,
      pids: [leader, nspawnPid],
    });
  }

  async readNode() {
    return this.core.readNode({ name: this.name });
  }

  /** Restarts the agent with `flags` after the rendered ones; waits until the new one serves /healthz. */
  async restartAgentWith(flags: readonly string[]): Promise<void> {
    await setAgentFlags(this.c, unitContent(this.osc, AGENT_UNIT), flags);
    const before = await agentMainPid(this.c);
    await this.c.run(['systemctl', 'restart', AGENT_UNIT]);
    const pid = await eventually(
      'the restarted agent to serve /healthz',
      async () => {
        const now = await agentMainPid(this.c);
        if (now === 0 || now === before) return undefined;
        const health = await httpGetInside(this.c, 2751, '/healthz').catch(() => '');
        return health.includes('check passed') ? now : undefined;
      },
      120_000,
      250,
    );
    const argv = (await this.c.run(['cat', `/proc/${pid}/cmdline`])).split('\0');
    for (const f of flags)
      if (!argv.includes(f)) throw new Error(`the agent runs without ${f}: ${argv.join(' ')}`);
  }

  /** Waits until the Node reports `checksum` applied; on timeout the agent's journal tells why. */
  async applied(checksum: string, timeoutMs = 180_000): Promise<void> {
    await eventually(
      'the Node to report the OSC applied',
      async () =>
        (await this.readNode()).metadata?.annotations?.[ANNOTATION.checksumCloudConfigData] === checksum,
      timeoutMs,
      250,
    ).catch(async (e: Error) => {
      const journal = await this.c.exec([
        'journalctl',
        '--no-pager',
        '-n',
        '60',
        '-u',
        AGENT_UNIT,
        '-o',
        'cat',
      ]);
      throw new Error(`${e.message}; the agent's journal:\n${journal.stdout}`);
    });
  }

  /** Publishes the OSC and returns what systemd started until the Node reported it applied. */
  async apply(next: OperatingSystemConfig, during?: () => Promise<void>): Promise<UnitStart[]> {
    return (await this.applyObserved(next, [], during)).starts;
  }

  /**
   * Publishes the OSC and waits until the Node reports it applied: the InvocationIDs of `units`
   * before and after, and every unit start until after them (read last, so a start by a unit's own
   * Restart= just before the second look is attributed, not taken for the agent's).
   */
  async applyObserved(
    next: OperatingSystemConfig,
    units: readonly string[],
    during?: () => Promise<void>,
  ): Promise<{ before: Invocations; after: Invocations; starts: UnitStart[] }> {
    const before = await this.invocations(units);
    const cursor = await journalCursor(this.c);
    const checksum = await this.shoot.publishOsc(next);
    await during?.();
    await this.applied(checksum);
    this.osc = next;
    const after = await this.invocations(units);
    return { before, after, starts: await unitStartsSince(this.c, cursor) };
  }

  async invocations(units: readonly string[]): Promise<Invocations> {
    if (units.length === 0) return new Map();
    return new Map(
      [...(await showUnits(this.c, units, ['InvocationID']))].map(([u, p]) => [u, p.InvocationID]),
    );
  }

  /** Writes `content` to `path` inside the node (through its own shell). */
  async writeInside(path: string, content: string): Promise<void> {
    await this.c.run([
      'sh',
      '-c',
      'printf %s "$2" | base64 -d > "$1"',
      'sh',
      path,
      Buffer.from(content).toString('base64'),
    ]);
  }
}

/** Units whose InvocationID changed, leaving out those systemd started by itself (Restart=, timers). */
export function changedByJobs(
  before: Invocations,
  after: Invocations,
  starts: readonly UnitStart[],
): string[] {
  const byItself = new Set(starts.filter((s) => s.cause !== 'job').map((s) => s.unit));
  return [...before.keys()].filter((u) => before.get(u) !== after.get(u) && !byItself.has(u)).sort();
}
