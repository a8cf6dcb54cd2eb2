/**
 * A shoot for the rollout gate's integration tests: the selected Cluster of the controller-manager
 * fixture with its two worker pools renamed for this run, each pool's OSC secret in the shoot
 * (written here: the tests change them to start rollouts), Nodes that are Ready, and one real
 * `gardener-node-agent run` process per Node (own root, recorded systemd with failure injection
 * from one shared rules file, 0.5 s settle time). The controller-manager runs with the rollout
 * controller alone, as its own ServiceAccount.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CoordinationV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type V1Node,
} from '@kubernetes/client-node';
import {
  key,
  type OperatingSystemConfig,
  ROLLOUT_STATUS_CONFIGMAP,
  sha256Hex,
  stringifyYaml,
} from '../../api/index.js';
import { addRolloutController } from '../../controllers/rollout/add.js';
import { decodeRolloutStatus, type PoolRollout } from '../../controllers/rollout/state.js';
import { createShootFixture, type ShootFixture } from '../../hack/landscape/controller-manager-fixture.js';
import type { Envtest } from '../../hack/landscape/envtest.js';
import { eventually, sleep } from '../../hack/landscape/eventually.js';
import { writeImages } from '../../hack/landscape/image-files.js';
import { BAD_MAX_PODS, KUBELET_CONFIG, kubeletOsc } from '../../hack/landscape/kubelet-osc.js';
import { oscSecretObject } from '../../hack/landscape/osc-secret.js';
import { createLogger, silentLogger } from '../../runtime/logging.js';
import { type RunningManager, runManager } from '../../seed/manager/run-manager.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const KUBERNETES_VERSION = '1.30.2';

export interface AgentNode {
  readonly name: string;
  readonly pool: string;
  readonly zone: string;
  readonly root: string;
  process?: ChildProcess;
  log: string;
}

export class RolloutLandscape {
  /** The shoot's core API (Nodes, secrets). */
  readonly core: CoreV1Api;
  /** The seed's core API (the status ConfigMap, events on the Cluster). */
  readonly seedCore: CoreV1Api;
  readonly nodes = new Map<string, AgentNode>();
  readonly pools: readonly [string, string];
  private manager: RunningManager | undefined;
  private readonly dir: string;
  private readonly faults: string;
  private readonly images: string;
  private readonly secrets = new Map<string, string>();

  private constructor(
    readonly fixture: ShootFixture,
    seed: Envtest,
    private readonly shoot: Envtest,
    readonly id: string,
  ) {
    this.core = shoot.kubeConfig.makeApiClient(CoreV1Api);
    this.seedCore = seed.kubeConfig.makeApiClient(CoreV1Api);
    this.pools = [`cpu-${id}`, `gpu-${id}`];
    this.dir = mkdtempSync(join(tmpdir(), 'rollout-it-'));
    this.faults = join(this.dir, 'faults.json');
    this.images = writeImages(join(this.dir, 'images'), {});
    writeFileSync(
      this.faults,
      JSON.stringify([
        {
          unit: 'kubelet.service',
          effect: 'inactive',
          whenFileContains: { path: KUBELET_CONFIG, text: `maxPods: ${BAD_MAX_PODS}` },
        },
      ]),
    );
  }

  /** The shoot with `window` seconds of max delay, both pools at maxPods 100, no nodes yet. */
  static async create(seed: Envtest, shoot: Envtest, windowSeconds: number): Promise<RolloutLandscape> {
    const fixture = await createShootFixture(seed, shoot, 'direct');
    const id = fixture.namespace.split('--').at(-1)!;
    const l = new RolloutLandscape(fixture, seed, shoot, id);
    await fixture.patchShoot((s) => {
      s.metadata.annotations = {
        ...s.metadata.annotations,
        'shoot.gardener.cloud/cloud-config-execution-max-delay-seconds': String(windowSeconds),
      };
      s.spec.provider.workers[0].name = l.pools[0];
      s.spec.provider.workers[1].name = l.pools[1];
    });
    for (const pool of l.pools) await l.setOsc(pool, kubeletOsc(100));
    return l;
  }

  /** The pool's secret as gardenlet names it for the agents' Kubernetes version (their label). */
  secretName(pool: string): string {
    return key(pool, KUBERNETES_VERSION);
  }

  /** Writes the pool's OSC secret (creating it); returns the checksum. */
  async setOsc(pool: string, osc: OperatingSystemConfig): Promise<string> {
    const yaml = stringifyYaml(osc);
    const checksum = sha256Hex(yaml);
    const body = oscSecretObject({ name: this.secretName(pool), oscYaml: yaml, pool });
    if (this.secrets.has(pool))
      await this.core.replaceNamespacedSecret({
        name: this.secretName(pool),
        namespace: 'kube-system',
        body,
      });
    else await this.core.createNamespacedSecret({ namespace: 'kube-system', body });
    this.secrets.set(pool, checksum);
    return checksum;
  }

  /** A Ready Node in the pool and zone, and its agent. */
  async addNode(name: string, pool: string, zone: string): Promise<AgentNode> {
    const full = `${name}-${this.id}`;
    await this.core.createNode({
      body: {
        metadata: {
          name: full,
          labels: {
            'kubernetes.io/hostname': full,
            'worker.gardener.cloud/pool': pool,
            'topology.kubernetes.io/zone': zone,
          },
        },
      },
    });
    await this.setReady(full, true);
    const node: AgentNode = { name: full, pool, zone, root: join(this.dir, full, 'root'), log: '' };
    mkdirSync(node.root, { recursive: true });
    this.nodes.set(full, node);
    this.startAgent(node);
    return node;
  }

  startAgent(node: AgentNode): void {
    const config = join(this.dir, node.name, 'config.yaml');
    writeFileSync(
      config,
      stringifyYaml({
        apiVersion: 'nodeagent.config.gardener.cloud/v1alpha1',
        kind: 'NodeAgentConfiguration',
        clientConnection: { kubeconfig: this.shoot.kubeconfigFile },
        apiServer: { server: this.shoot.server },
        controllers: {
          operatingSystemConfig: {
            secretName: this.secretName(node.pool),
            kubernetesVersion: KUBERNETES_VERSION,
            syncJitterPeriod: '0s',
          },
          token: {
            syncConfigs: [
              { secretName: 'gardener-node-agent', path: '/var/lib/gardener-node-agent/credentials/token' },
            ],
          },
        },
      }),
    );
    const cli = join(import.meta.dirname, '../../hack/node-agent-doubles/main.ts');
    const args = ['--import', 'tsx', cli, 'run', '--config', config, '--root', node.root];
    args.push(`--systemd=record:${join(this.dir, node.name, 'systemd.jsonl')}`, '--images', this.images);
    args.push('--node-name', node.name, '--health-port', '0', '--metrics-port', '0', '--no-health-check');
    args.push('--apply-settle-time', '500ms');
    const child = spawn(process.execPath, args, {
      env: { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1', NODE_AGENT_TEST_SYSTEMD_FAULTS: this.faults },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d) => (node.log += d));
    child.stderr?.on('data', (d) => (node.log += d));
    node.process = child;
  }

  async stopAgent(node: AgentNode): Promise<void> {
    const child = node.process;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
    child.kill('SIGKILL');
  }

  async setReady(name: string, ready: boolean): Promise<void> {
    await this.core.patchNodeStatus(
      {
        name,
        body: {
          status: {
            conditions: [
              {
                type: 'Ready',
                status: ready ? 'True' : 'False',
                reason: 'Test',
                lastTransitionTime: new Date(),
                lastHeartbeatTime: new Date(),
              },
            ],
          },
        },
      },
      merge,
    );
  }

  /** Runs the controller-manager with the rollout controller alone. */
  async startManager(rollout: Record<string, unknown>): Promise<RunningManager> {
    const config = this.fixture.config({ leaderElection: { enabled: false }, controllers: { rollout } });
    const log = process.env.TEST_LOG ? createLogger({ level: 'debug', format: 'text' }) : silentLogger;
    this.manager = await runManager({
      config,
      seed: this.fixture.seedIdentity,
      log,
      controllers: { seed: [], shoot: [(ctx, env) => addRolloutController(ctx, env)] },
    });
    return this.manager;
  }

  /** The running controller-manager's /metrics text. */
  async metrics(): Promise<string> {
    if (!this.manager) throw new Error('no controller-manager runs');
    return (await fetch(`${this.manager.metrics.url}/metrics`)).text();
  }

  async stopManager(): Promise<void> {
    const m = this.manager;
    this.manager = undefined;
    if (!m) return;
    m.stop();
    await m.stopped;
  }

  async status(): Promise<ReadonlyMap<string, PoolRollout>> {
    const cm = await this.seedCore
      .readNamespacedConfigMap({ name: ROLLOUT_STATUS_CONFIGMAP, namespace: this.fixture.namespace })
      .catch(() => undefined);
    return decodeRolloutStatus(cm?.data);
  }

  /** The status of a pool once `check` holds. */
  async poolWhen(pool: string, what: string, check: (p: PoolRollout) => boolean, timeoutMs = 60_000) {
    return eventually(
      what,
      async () => {
        const p = (await this.status()).get(pool);
        return p && check(p) ? p : undefined;
      },
      timeoutMs,
      200,
    );
  }

  readNode(name: string): Promise<V1Node> {
    return this.core.readNode({ name });
  }

  async applied(name: string): Promise<string | undefined> {
    return (await this.readNode(name)).metadata?.annotations?.['checksum/cloud-config-data'];
  }

  inPool(pool: string): AgentNode[] {
    return [...this.nodes.values()].filter((n) => n.pool === pool);
  }

  async annotateCluster(annotations: Record<string, string | null>): Promise<void> {
    await this.patchCluster({ annotations });
  }

  /** Merges labels or annotations into the Cluster's metadata (null removes one). */
  async patchCluster(metadata: {
    labels?: Record<string, string | null>;
    annotations?: Record<string, string | null>;
  }): Promise<void> {
    await this.fixture.seedObjects.patch(
      {
        apiVersion: 'extensions.gardener.cloud/v1alpha1',
        kind: 'Cluster',
        metadata: { name: this.fixture.namespace, ...metadata },
      } as never,
      undefined,
      undefined,
      'test',
      undefined,
      PatchStrategy.MergePatch,
    );
  }

  /** Events on the Cluster with this reason, oldest first. */
  async events(reason: string): Promise<string[]> {
    const list = await this.seedCore.listNamespacedEvent({ namespace: 'default' });
    return list.items
      .filter((e) => e.involvedObject.name === this.fixture.namespace && e.reason === reason)
      .sort((a, b) =>
        String(a.metadata?.creationTimestamp).localeCompare(String(b.metadata?.creationTimestamp)),
      )
      .map((e) => `${e.type}: ${e.message}`);
  }

  /** The systemd calls an agent recorded. */
  recording(node: AgentNode): string {
    try {
      return readFileSync(join(this.dir, node.name, 'systemd.jsonl'), 'utf8');
    } catch {
      return '';
    }
  }

  async cleanUp(): Promise<void> {
    await this.stopManager().catch(() => undefined);
    await Promise.all([...this.nodes.values()].map((n) => this.stopAgent(n)));
    for (const name of this.nodes.keys()) await this.core.deleteNode({ name }).catch(() => undefined);
    for (const pool of this.secrets.keys())
      await this.core
        .deleteNamespacedSecret({ name: this.secretName(pool), namespace: 'kube-system' })
        .catch(() => undefined);
    const coordination = this.shoot.kubeConfig.makeApiClient(CoordinationV1Api);
    for (const name of this.nodes.keys())
      await coordination
        .deleteNamespacedLease({ name: `gardener-node-agent-${name}`, namespace: 'kube-system' })
        .catch(() => undefined);
    await this.fixture.cleanUp();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
