/**
 * One worker node of `npm run demo -- --real-nodes`: a real node (hack/real-node), an nspawn
 * container with systemd as its PID 1, booted from the real-node image with the legacy
 * cloud-config-downloader's state as its user data (legacy-user-data.ts). node-init's steps run as
 * gardener-node-init.service under the node's systemd: ctr takes the agent's single executable from
 * its image, `gardener-node-agent bootstrap` migrates the downloader and starts
 * gardener-node-agent.service, which reaches the demo's shoot API server through the node's
 * loopback (hack/real-node/api-proxy.ts). The kubelet is the image's stand-in
 * (hack/real-node/stubs/kubelet), not a real kubelet. What systemd did is read from the node's
 * journal (hack/real-node/systemd-state.ts), in the shape of the recorded systemd's calls.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type OperatingSystemConfig, PATH, parseYaml, stringifyYaml, UNIT } from '../../api/index.js';
import { nodeInitScript } from '../../components/node-init/init-script.js';
import type { RecordedSystemdOp } from '../node-agent-doubles/recording-systemd.js';
import { setAgentFlags } from '../real-node/agent-flags.js';
import type { Container } from '../real-node/container.js';
import { type HostSnapshot, hostDifferences } from '../real-node/host-state.js';
import { linkImages, type NodeUnderTest, provisionNode } from '../real-node/node-under-test.js';
import { unitContent } from '../real-node/osc-edits.js';
import { API_SERVER_IN_NODE } from '../real-node/shoot.js';
import { unitStartsSince } from '../real-node/systemd-state.js';
import { legacyUserData } from './legacy-user-data.js';
import { kubeconfigUser, type LegacyState, type NodeSpec } from './node.js';
import type { NodeInit, ScenarioNode } from './scenario-node.js';

export interface RealNodeEnvironment {
  /** The shoot API server as this machine reaches it (the nodes reach it at API_SERVER_IN_NODE). */
  readonly apiServer: string;
  /** The agent's single executable (`buildNodeAgent`), the file of the agent image. */
  readonly agentBinary: string;
  /** The real-node image (hack/real-node/build.sh's cache dir). */
  readonly cache: string;
  /** A line for the demo's timeline. */
  readonly emit: (node: string, text: string) => void;
}

/** Every image file the OSC takes from an image, by the path taken from it. */
export function imagesOf(osc: OperatingSystemConfig): { image: string; path: string }[] {
  return [...(osc.spec.files ?? []), ...(osc.status?.extensionFiles ?? [])].flatMap((f) =>
    f.content.imageRef ? [{ image: f.content.imageRef.image, path: f.content.imageRef.filePathInImage }] : [],
  );
}

export class RealDemoNode implements ScenarioNode {
  readonly fatal: string | undefined = undefined;
  agentStarts: number[] = [];
  agentRestartedItself = false;
  private booted: NodeUnderTest | undefined;
  /** What of the node could stay on this machine, known once it booted. */
  private traces: { name: string; nodeDir: string; pids: number[] } | undefined;
  private recorded: RecordedSystemdOp[] = [];
  private reading: Promise<void> | undefined;

  /** Nothing is booted yet: writeLegacyState boots the node. */
  constructor(
    readonly spec: NodeSpec,
    private readonly dir: string,
    private readonly env: RealNodeEnvironment,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  private get container(): Container {
    if (!this.booted) throw new Error(`${this.name} has not booted`);
    return this.booted.container;
  }

  /** Boots the node with the downloader's state as its user data. */
  async writeLegacyState(state: LegacyState): Promise<void> {
    const from = Date.now();
    this.booted = await provisionNode({
      name: this.name,
      shoot: { images: [], userData: legacyUserData(state), registerNode: async () => undefined },
      envtest: { server: this.env.apiServer },
      agentBinary: this.env.agentBinary,
      cache: this.env.cache,
      registerNode: false,
    });
    const { leader, nspawnPid } = this.booted.container;
    this.traces = { name: this.name, nodeDir: this.booted.node.nodeDir, pids: [leader, nspawnPid] };
    const userData = await this.container.systemctl('is-failed', '--quiet', 'user-data.service');
    if (userData.code === 0)
      throw new Error(`${this.name}: the user data failed:\n${await this.journal('user-data')}`);
    const downloader = await this.container.systemctl('is-enabled', UNIT.downloader);
    this.env.emit(
      this.name,
      `booted in ${((Date.now() - from) / 1000).toFixed(1)} s (nspawn, systemd as PID 1); its user data wrote the downloader's state, ${UNIT.downloader} ${downloader.stdout.trim()} and started`,
    );
  }

  hasLegacyState(): boolean {
    return (
      existsSync(this.container.path(PATH.downloaderDir)) ||
      existsSync(this.container.path(PATH.downloaderUnitWantsLink))
    );
  }

  /**
   * node-init's steps under the node's systemd: the config and init script in place, the agent's
   * image in the node's image directory, then gardener-node-init.service runs the script. The agent
   * is pointed at the node's path to the API server with a runtime drop-in (--api-server), as the
   * shoot's own name does not resolve in the node.
   */
  async nodeInit(o: NodeInit): Promise<void> {
    linkImages(this.booted!.node.hostFile('images'), imagesOf(o.osc), this.env.agentBinary);
    await this.writeInside(PATH.nodeAgentConfig, o.configYaml, 0o600);
    await this.writeInside(PATH.nodeAgentInitScript, o.initScript ?? nodeInitScript(o.agentImage), 0o755);
    await setAgentFlags(this.container, unitContent(o.osc, UNIT.nodeAgent), [
      `--api-server=${API_SERVER_IN_NODE}`,
    ]);
    const init = await this.container.exec(
      [
        'systemd-run',
        `--unit=${UNIT.nodeInit}`,
        '--service-type=oneshot',
        '--wait',
        '--collect',
        '--quiet',
        '--property=After=containerd.service',
        PATH.nodeAgentInitScript,
      ],
      180_000,
    );
    if (init.code !== 0)
      throw new Error(`${this.name}: ${UNIT.nodeInit} failed:\n${await this.journal(UNIT.nodeInit)}`);
    const agent = (await this.container.systemctl('is-active', UNIT.nodeAgent)).stdout.trim();
    const downloader = (await this.container.systemctl('is-active', UNIT.downloader)).stdout.trim();
    this.env.emit(
      this.name,
      `node-init ran as ${UNIT.nodeInit}: ctr took the agent from its image, bootstrap ran; ${UNIT.downloader} ${downloader}, ${UNIT.nodeAgent} ${agent}`,
    );
  }

  /** Unit starts from the node's journal since boot: a start of a unit started before is a restart. */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    if (!this.booted) return;
    const starts = await unitStartsSince(this.container, '');
    const started = new Set<string>();
    const ops: RecordedSystemdOp[] = [];
    const agentStarts: number[] = [];
    let restartedItself = false;
    for (const s of starts) {
      const at = new Date(Math.floor(s.realtimeUs / 1000));
      if (s.unit === UNIT.nodeAgent) {
        agentStarts.push(at.getTime());
        // the agent exits so that its Restart=always starts it again
        if (s.cause === 'restart-policy') restartedItself = true;
      }
      if (s.cause === 'job')
        ops.push({ op: started.has(s.unit) ? 'restart' : 'start', unit: s.unit, at: at.toISOString() });
      started.add(s.unit);
    }
    this.recorded = ops;
    this.agentStarts = agentStarts;
    this.agentRestartedItself = restartedItself;
  }

  ops(from = 0): RecordedSystemdOp[] {
    return this.recorded.slice(from);
  }

  readRootFile(path: string): string | undefined {
    if (!this.booted) return undefined;
    const file = this.container.path(path);
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  }

  identity(): string | undefined {
    return kubeconfigUser(this.readRootFile(PATH.nodeAgentKubeconfig));
  }

  /** The node's kubeconfig names the API server as the node reaches it: this copy, as this machine does. */
  identityKubeconfig(): string {
    const text = this.readRootFile(PATH.nodeAgentKubeconfig);
    if (text === undefined) throw new Error(`${this.name} has no ${PATH.nodeAgentKubeconfig}`);
    const kubeconfig = parseYaml(text) as { clusters?: { cluster?: { server?: string } }[] };
    for (const c of kubeconfig.clusters ?? []) if (c.cluster) c.cluster.server = this.env.apiServer;
    const file = join(this.dir, 'identity.kubeconfig');
    writeFileSync(file, stringifyYaml(kubeconfig), { mode: 0o600 });
    chmodSync(file, 0o600);
    return file;
  }

  /**
   * One node after the other: the last node to go removes the run's directory under the node base
   * (hack/real-node/real-node.ts), which nodes stopping at once could each leave to the other.
   */
  stop(): Promise<void> {
    const stopped = RealDemoNode.stopping.then(async () => {
      await this.reading?.catch(() => undefined);
      await this.booted?.stop();
      this.booted = undefined;
    });
    RealDemoNode.stopping = stopped.catch(() => undefined);
    return stopped;
  }

  private static stopping: Promise<void> = Promise.resolve();

  /** What the node left on this machine once stopped (hack/real-node/host-state.ts); empty: nothing. */
  leftOnHost(before: HostSnapshot, after: HostSnapshot): string[] {
    return this.traces ? hostDifferences(before, after, this.traces) : [];
  }

  private async journal(unit: string): Promise<string> {
    return (await this.container.exec(['journalctl', '--no-pager', '-n', '40', '-o', 'cat', '-u', unit]))
      .stdout;
  }

  /** Writes a file through the node's own shell (never through its root from outside). */
  private async writeInside(path: string, content: string, mode: number): Promise<void> {
    await this.container.run([
      'sh',
      '-c',
      'mkdir -p "$(dirname "$1")" && printf %s "$2" | base64 -d > "$1" && chmod "$3" "$1"',
      'sh',
      path,
      Buffer.from(content).toString('base64'),
      mode.toString(8),
    ]);
  }
}
