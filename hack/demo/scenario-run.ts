/**
 * The scenario's landscape while it runs (ScenarioRun): set up by `setUp` (a work dir, a seed and a
 * shoot kube-apiserver, the bundled agent, the Cluster, the nodes to be) and removed by `tearDown`
 * (every process, API server and temp dir, whatever happened), with the timeline every step
 * writes to. A demo killed by SIGKILL cannot tear down; the next run reaps what it left.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ANNOTATION, UNIT } from '../../api/index.js';
import { untilAborted } from '../../runtime/abort.js';
import { buildNodeAgent, bundleNodeAgentWithDoubles } from '../build-node-agent.js';
import { authorizerEndpoint } from '../landscape/authorizer-endpoint.js';
import { type CsrSigner, startCsrSigner } from '../landscape/csr-signer.js';
import { type Envtest, requireClusterScopedWrites, startEnvtest } from '../landscape/envtest.js';
import { type HostSnapshot, hostSnapshot, removeCanary } from '../real-node/host-state.js';
import { reapStaleNodes } from '../real-node/runs.js';
import {
  type ControllerManager,
  exampleShootNamespace,
  type Landscape,
  setUpLandscape,
} from './landscape.js';
import type { NodeSpec } from './node.js';
import { createNode, type NodeKind } from './node-factory.js';
import { killAllNow } from './processes.js';
import { RealDemoNode } from './real-demo-node.js';
import { realNodePrerequisites } from './real-nodes-mode.js';
import type { ScenarioNode } from './scenario-node.js';
import {
  BAD_MAX_PODS,
  DEFAULT_MAX_DELAY_SECONDS,
  KUBELET_CONFIG_FILE,
  nodeSpecs,
  type Phase,
  type ScenarioOptions,
  type TimelineEntry,
} from './scenario-result.js';
import { Interrupted } from './wait.js';

const WORK_DIR_PREFIX = 'gardener-osc-demo-run-';
/** In every work dir: the demo's pid and its API servers' data dirs, for reapKilledRuns. */
const OWNER_FILE = 'owner.json';

export interface ScenarioRun {
  readonly options: ScenarioOptions;
  /** Epoch milliseconds of t = 0. */
  readonly startedAt: number;
  readonly maxDelaySeconds: number;
  readonly signal: AbortSignal;
  readonly workDir: string;
  readonly timeline: TimelineEntry[];
  readonly seed: Envtest;
  readonly shoot: Envtest;
  readonly landscape: Landscape;
  readonly specs: readonly NodeSpec[];
  readonly nodes: readonly ScenarioNode[];
  readonly imagesDir: string;
  /** The bundled agent, copied into the fake agent image. */
  readonly bundle: string;
  readonly controllerManagerLog: string;
  /** The running controller-manager (each step may restart it). */
  controllerManager: ControllerManager | undefined;
  /** Each step's time span, ms since t = 0. */
  readonly phases: Record<string, { from: number; to: number }>;
  emit(kind: TimelineEntry['kind'], text: string, node?: string): void;
  /** A phase starts. */
  heading(phase: Phase, text: string): void;
  /** Milliseconds since t = 0 of an epoch time. */
  since(epoch: number): number;
}

interface Resources {
  readonly envtests: Promise<Envtest>[];
  /** Signs the agents' approved certificate requests, as the shoot's kube-controller-manager does. */
  signer?: CsrSigner;
  bundling: Promise<void>;
  readonly nodes: ScenarioNode[];
  readonly lastResort: () => void;
  /** The host before the first real node booted, to compare once they are gone. */
  readonly hostBefore?: HostSnapshot;
}

const resources = new WeakMap<ScenarioRun, Resources>();

/** Rejects with Interrupted when the signal aborts first (the promise runs on; cleanup catches it). */
export function untilInterrupted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return untilAborted(promise, signal, () => new Interrupted());
}

/** The landscape of one scenario run; everything it started is removed again when it fails. */
export async function setUp(o: ScenarioOptions): Promise<ScenarioRun> {
  const startedAt = Date.now();
  const maxDelaySeconds = o.maxDelaySeconds ?? DEFAULT_MAX_DELAY_SECONDS;
  const signal = o.signal ?? new AbortController().signal;
  const timeline: TimelineEntry[] = [];
  let phase: Phase = 'setup';
  const emit = (kind: TimelineEntry['kind'], text: string, node?: string) => {
    const entry: TimelineEntry = { t: Date.now() - startedAt, phase, kind, text, ...(node ? { node } : {}) };
    timeline.push(entry);
    o.onTimeline?.(entry);
  };
  const heading = (p: Phase, text: string) => {
    phase = p;
    emit('heading', text);
  };

  // before anything starts: a machine that cannot boot real nodes says what to run
  const realNodeImage = o.realNodes ? realNodePrerequisites() : undefined;
  const reapedNodes = o.realNodes ? reapStaleNodes() : [];
  const reaped = reapKilledRuns(o.tmpDir ?? tmpdir());
  const workDir = mkdtempSync(join(o.tmpDir ?? tmpdir(), WORK_DIR_PREFIX));
  // the agent bundle is CommonJS without an extension: no package.json above may say "module"
  writeFileSync(join(workDir, 'package.json'), '{"type":"commonjs"}\n');
  for (const d of ['images', 'nodes', 'controller-manager']) mkdirSync(join(workDir, d));
  // a last resort if the process exits without tearing down
  const envtestDirs: string[] = [];
  const writeOwner = () =>
    writeFileSync(join(workDir, OWNER_FILE), JSON.stringify({ pid: process.pid, envtestDirs }));
  writeOwner();
  const lastResort = () => {
    killAllNow();
    if (!o.keepWorkDir) rmSync(workDir, { recursive: true, force: true });
    // their supervisors stop the servers when this process is gone; the data must go too
    for (const dir of envtestDirs) rmSync(dir, { recursive: true, force: true });
    // the real nodes' supervisors power them off when this process is gone
    if (realNodeImage) removeCanary();
  };
  process.once('exit', lastResort);
  const res: Resources = {
    envtests: [],
    bundling: Promise.resolve(),
    nodes: [],
    lastResort,
    ...(realNodeImage ? { hostBefore: hostSnapshot() } : {}),
  };

  try {
    heading('setup', `Setup: ${o.nodes} nodes, max delay ${maxDelaySeconds} s, work dir ${workDir}`);
    if (reaped.length > 0) emit('step', `removed what a killed demo run left: ${reaped.join(', ')}`);
    if (reapedNodes.length > 0)
      emit('step', `removed the real nodes a vanished run left: ${reapedNodes.join(', ')}`);
    if (process.env.TEST_KUBECONFIG)
      throw new Error(
        'the demo starts its own seed and shoot API servers (it needs their audit logs and writes cluster-scoped objects): unset TEST_KUBECONFIG',
      );
    emit('step', 'starting the seed and the shoot kube-apiserver (envtest) and bundling gardener-node-agent');
    const id = Math.random().toString(36).slice(2, 8);
    // the shoot's kube-apiserver asks the controller-manager's authorizer about node agents, and
    // NodeRestriction limits the kubelets, as on a landscape with per-node identities
    const endpoint = await authorizerEndpoint({
      shootNamespace: exampleShootNamespace(),
      parentDir: workDir,
    });
    const authorizer = endpoint.serving;
    res.envtests.push(
      startEnvtest({ name: `demo-${id}-seed` }),
      startEnvtest({
        name: `demo-${id}-shoot`,
        ...endpoint.envtest,
        admissionPlugins: ['NodeRestriction'],
      }),
    );
    for (const e of res.envtests)
      e.then(
        (env) => {
          if (env.existing) return;
          envtestDirs.push(dirname(env.kubeconfigFile));
          writeOwner();
        },
        () => undefined,
      );
    const bundle = join(workDir, 'gardener-node-agent.cjs');
    res.bundling = bundleNodeAgentWithDoubles(bundle).then(() => undefined);
    // a real node takes the agent's single executable from its image, as a Gardener node does
    const agentExecutable = realNodeImage
      ? buildNodeAgent({ outDir: join(workDir, 'real-node-agent') })
      : undefined;
    res.bundling = Promise.all([res.bundling, agentExecutable]).then(() => undefined);
    const [seed, shoot] = await untilInterrupted(
      Promise.all([...res.envtests, res.bundling]).then(([s, t]) => [s, t] as [Envtest, Envtest]),
      signal,
    );
    requireClusterScopedWrites(seed);
    requireClusterScopedWrites(shoot);
    for (const [role, env] of [
      ['seed ', seed],
      ['shoot', shoot],
    ] as const)
      emit(
        'step',
        `${role} kube-apiserver ${env.version.gitVersion} at ${env.server} (data in ${dirname(env.kubeconfigFile)})`,
      );
    res.signer = startCsrSigner(shoot);
    emit(
      'step',
      "per-node identities: the shoot's kube-apiserver asks the controller-manager's node agent authorizer about agents (NodeRestriction on); a signer stands in for the kube-controller-manager's",
    );
    const landscape = await setUpLandscape({
      seed,
      shoot,
      workDir,
      maxDelaySeconds,
      authorizer,
      withoutDataVolumes: o.realNodes,
    });
    const cluster = await landscape.cluster();
    emit(
      'step',
      `Cluster ${landscape.namespace} from examples/cluster.yaml (pools ${cluster.spec.shoot.spec.provider.workers.map((w: { name: string }) => w.name).join(', ')}), annotation ${ANNOTATION.maxDelaySeconds}="${maxDelaySeconds}"`,
    );
    const specs = nodeSpecs(
      o.nodes,
      cluster.spec.shoot.spec.provider.workers,
      cluster.spec.shoot.spec.kubernetes.version,
      // node names are machine names on this machine: unique per run, as hack/real-node requires
      realNodeImage ? `real-node-demo-${id}-` : undefined,
    );
    const imagesDir = join(workDir, 'images');
    // a kubelet with the bad setting does not stay up, on every node that applies it
    const systemdFaults = join(workDir, 'systemd-faults.json');
    writeFileSync(
      systemdFaults,
      JSON.stringify([
        {
          unit: UNIT.kubelet,
          effect: 'inactive',
          whenFileContains: { path: KUBELET_CONFIG_FILE, text: `maxPods: ${BAD_MAX_PODS}` },
        },
      ]),
    );
    const nodeEnv = {
      apiServer: shoot.server,
      imagesDir,
      emit: (node: string, text: string) => emit('node', text, node),
      signal,
      systemdFaults,
    };
    const kind: NodeKind = realNodeImage
      ? {
          real: true,
          env: {
            apiServer: shoot.server,
            agentBinary: (await agentExecutable!).binary,
            cache: realNodeImage,
            emit: nodeEnv.emit,
          },
        }
      : { real: false, env: nodeEnv };
    if (realNodeImage)
      emit(
        'step',
        `real nodes: each an nspawn container with systemd as PID 1, booted from ${realNodeImage}; the kubelet is the image's stand-in (hack/real-node/stubs/kubelet serves /healthz), not a real kubelet`,
      );
    for (const spec of specs) res.nodes.push(createNode(spec, workDir, kind));
    const run: ScenarioRun = {
      options: o,
      startedAt,
      maxDelaySeconds,
      signal,
      workDir,
      timeline,
      seed,
      shoot,
      landscape,
      specs,
      nodes: res.nodes,
      imagesDir,
      bundle,
      controllerManagerLog: join(workDir, 'controller-manager', 'controller-manager.log'),
      controllerManager: undefined,
      phases: { setup: { from: 0, to: Date.now() - startedAt } },
      emit,
      heading,
      since: (epoch) => epoch - startedAt,
    };
    resources.set(run, res);
    return run;
  } catch (e) {
    await release(res, workDir, o);
    throw e;
  }
}

/** Stops every node, the controller-manager and the API servers and removes the temp dirs; idempotent. */
export async function tearDown(run: ScenarioRun): Promise<void> {
  const res = resources.get(run);
  if (!res) return;
  resources.delete(run);
  await run.controllerManager?.stop().catch(() => undefined);
  const host = await release(res, run.workDir, run.options);
  if (host) run.emit('step', host);
}

/** What the real nodes left on this machine (hack/real-node/host-state.ts), in one line. */
function hostLeftAsFound(before: HostSnapshot, nodes: readonly ScenarioNode[]): string {
  const after = hostSnapshot();
  const problems = [
    ...new Set(nodes.flatMap((n) => (n instanceof RealDemoNode ? n.leftOnHost(before, after) : []))),
  ];
  removeCanary();
  return problems.length === 0
    ? "the host as found: no process, cgroup, mount, /run/systemd/nspawn entry or directory of the nodes left; the host's /etc/systemd/system and a /tmp canary unchanged"
    : `the host NOT as found: ${problems.join('; ')}`;
}

/** Everything of the run goes; with real nodes, says whether the host is as found. */
async function release(res: Resources, workDir: string, o: ScenarioOptions): Promise<string | undefined> {
  await Promise.allSettled(res.nodes.map((n) => n.stop()));
  await res.signer?.stop().catch(() => undefined);
  await Promise.allSettled([res.bundling, ...res.envtests.map((e) => e.then((env) => env.stop()))]);
  killAllNow();
  if (!o.keepWorkDir) rmSync(workDir, { recursive: true, force: true });
  process.off('exit', res.lastResort);
  return res.hostBefore ? hostLeftAsFound(res.hostBefore, res.nodes) : undefined;
}

/**
 * A demo killed by SIGKILL cannot clean up: its children go with it (their supervisors see to
 * that), its temp dirs stay. The next run removes the work dirs (and API server data dirs) of runs
 * whose process is gone.
 */
export function reapKilledRuns(dir: string): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(dir).filter((n) => n.startsWith(WORK_DIR_PREFIX))) {
    const workDir = join(dir, name);
    let owner: { pid: number; envtestDirs: string[] };
    try {
      owner = JSON.parse(readFileSync(join(workDir, OWNER_FILE), 'utf8')) as typeof owner;
    } catch {
      continue; // not (yet) a demo's work dir
    }
    try {
      process.kill(owner.pid, 0);
      continue; // its demo still runs
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') continue; // someone else's process
    }
    for (const d of [workDir, ...owner.envtestDirs.filter((d) => basename(d).startsWith('envtest-demo-'))]) {
      rmSync(d, { recursive: true, force: true });
      removed.push(d);
    }
  }
  return removed;
}
