/**
 * What the demo's scenario measures (ScenarioResult, for the summary table, the SVG chart and the
 * e2e assertions), its timeline, and where its nodes go (pools, zones).
 */
import type { NodeSpec } from './node.js';

export const DEFAULT_MAX_DELAY_SECONDS = 20;

export type Phase = 'setup' | 'legacy' | 'migration' | 'rollout' | 'limits' | 'summary' | 'cleanup';

export interface TimelineEntry {
  /** Milliseconds since the scenario started. */
  readonly t: number;
  readonly phase: Phase;
  /** heading: a phase starts; step: what the demo does; node: what a node did; progress: counts. */
  readonly kind: 'heading' | 'step' | 'node' | 'progress';
  readonly node?: string;
  readonly text: string;
}

export interface ScenarioOptions {
  readonly nodes: number;
  readonly maxDelaySeconds?: number;
  /** Aborting it stops the scenario (Ctrl-C); the scenario then cleans up and throws Interrupted. */
  readonly signal?: AbortSignal;
  readonly onTimeline?: (entry: TimelineEntry) => void;
  /** Where the work dir is created (default: the OS temp dir). */
  readonly tmpDir?: string;
  /** Leave the work dir (roots, logs, recordings) for inspection. */
  readonly keepWorkDir?: boolean;
  /** The kubelet change is a bad one: kubelet does not stay up on a node that applies it. */
  readonly breakRollout?: boolean;
  /** Each node a real node: an nspawn container with systemd as PID 1 (real-demo-node.ts). */
  readonly realNodes?: boolean;
}

/** The bad kubelet setting of `--break-rollout`: a kubelet with it stays inactive (injected fault). */
export const BAD_MAX_PODS = 999;
export const KUBELET_CONFIG_FILE = '/var/lib/kubelet/config/kubelet';

/** One node in one rollout behind the gate; times in ms since t = 0 of the scenario. */
export interface NodeInRollout {
  readonly node: string;
  readonly pool: string;
  readonly zone: string;
  /** The wave that took it (undefined: a new machine, or it never got the change). */
  wave?: number;
  permittedAt?: number;
  /** Its agent's first systemd call after the change. */
  appliedAt?: number;
  reportedAt?: number;
  result?: 'Succeeded' | 'Failed';
  reason?: string;
  restarts: { unit: string; at: number }[];
}

export interface WaveSeen {
  readonly pool: string;
  readonly wave: number;
  /** first: the nodes the last configuration failed; canary; wave. */
  readonly kind: 'first' | 'canary' | 'wave';
  readonly nodes: readonly string[];
  readonly at: number;
}

export interface PoolEnd {
  readonly pool: string;
  readonly phase: 'Completed' | 'Halted';
  readonly at: number;
  readonly reason?: string;
}

/** One rollout of a changed configuration, as the gate let it out. */
export interface RolloutChange {
  readonly label: string;
  /** The checksum rolled out, per pool. */
  readonly targets: ReadonlyMap<string, string>;
  readonly nodes: ReadonlyMap<string, NodeInRollout>;
  readonly waves: readonly WaveSeen[];
  readonly pools: ReadonlyMap<string, PoolEnd>;
}

export interface NodeResult {
  readonly name: string;
  readonly pool: string;
  readonly zone: string;
  readonly migration: {
    readonly nodeInitAt: number;
    /** When the node counted as migrated: its pool's checksum and a fresh Lease (ms since start). */
    readonly reportedAt: number;
    readonly agentRestartedItself: boolean;
    readonly unitsRestarted: readonly string[];
    readonly legacyStateRemoved: boolean;
  };
  readonly rollout: {
    /** The node's reconciliation delay, from its annotation (the gate times nodes itself). */
    readonly delayMs: number;
    /** The node in each rollout of the step, in the order of ScenarioResult.rollout.changes. */
    readonly changes: readonly NodeInRollout[];
    readonly checksumOk: boolean;
  };
  /** Step 4: requests made with the node's own identity (steps/compromised-node.ts). */
  readonly limits: {
    /** The user its identity kubeconfig authenticates as. */
    readonly identity: string;
    readonly probes: number;
    /** Probes whose outcome was not the expected one, with the outcome. */
    readonly unexpected: readonly string[];
  };
  readonly agentStarts: number;
}

export interface ScenarioResult {
  /** Epoch milliseconds of t = 0. */
  readonly startedAt: number;
  readonly maxDelaySeconds: number;
  readonly workDir: string;
  readonly nodes: readonly NodeResult[];
  readonly pools: readonly { name: string; secret: string; checksum: string; nodes: number }[];
  readonly phases: Readonly<
    Record<'setup' | 'legacy' | 'migration' | 'rollout' | 'limits', { from: number; to: number }>
  >;
  readonly migration: {
    readonly statesSeen: readonly string[];
    readonly completedAt: number;
    /** DELETE requests of the legacy access secret in the seed's audit log, at the very end. */
    readonly legacyAccessSecretDeletes: number;
    readonly cleanupsMetric: number | undefined;
    /** Legacy objects still present after the cleanup (should be none). */
    readonly legacyLeft: readonly string[];
  };
  readonly rollout: {
    readonly mode: 'healthy' | 'broken';
    readonly change: string;
    /** When the demo changed the Cluster (ms since start). */
    readonly changedAt: number;
    /** When the first pool's OSC secret changed (ms since start): t = 0 of the chart. */
    readonly secretsChangedAt: number;
    /** The controller-manager's settle time and canary size. */
    readonly settleMs: number;
    readonly canary: number;
    /** The rollouts of the step: the change; with --break-rollout the bad change, then its fix. */
    readonly changes: readonly RolloutChange[];
    /** --break-rollout: how far the bad change got. */
    readonly bad?: { readonly applied: number; readonly nodes: number; readonly pools: number };
    /** From the first kubelet restart of the first rollout to its last. */
    readonly spanMs: number;
    /** kubelet restarts per 1 s bucket from secretsChangedAt on. */
    readonly kubeletRestartsPerSecond: readonly number[];
    readonly maxKubeletRestartsInOneSecond: number;
  };
  /** The probes of step 4 with their expected outcome. */
  readonly limits: { readonly probes: readonly string[] };
  readonly timeline: readonly TimelineEntry[];
}

/** Nodes over the example's pools, round robin while a pool is below its maximum; zones round robin per pool. */
export function nodeSpecs(
  count: number,
  workers: readonly {
    name: string;
    maximum?: number;
    zones?: string[];
    cri?: { name?: string };
    kubernetes?: { version?: string };
    machine: { architecture?: string };
  }[],
  shootVersion: string,
  namePrefix = 'node-',
): NodeSpec[] {
  const perPool = new Map<string, number>(workers.map((w) => [w.name, 0]));
  const width = Math.max(2, String(count).length);
  const specs: NodeSpec[] = [];
  for (let i = 0; i < count; i++) {
    const below = workers.filter((w) => (perPool.get(w.name) ?? 0) < (w.maximum ?? Number.POSITIVE_INFINITY));
    const candidates = below.length > 0 ? below : workers;
    // the pool with the fewest nodes so far, in the example's order
    const worker = candidates.reduce((a, b) =>
      (perPool.get(b.name) ?? 0) < (perPool.get(a.name) ?? 0) ? b : a,
    );
    const index = perPool.get(worker.name) ?? 0;
    perPool.set(worker.name, index + 1);
    const zones = worker.zones?.length ? worker.zones : ['zone-a'];
    specs.push({
      name: `${namePrefix}${String(i + 1).padStart(width, '0')}`,
      pool: worker.name,
      zone: zones[index % zones.length] ?? 'zone-a',
      kubernetesVersion: worker.kubernetes?.version ?? shootVersion,
      criName: worker.cri?.name,
      architecture: worker.machine.architecture ?? 'amd64',
    });
  }
  return specs;
}

/** The highest count of `times` in one 1 s bucket from `t0` on, and the buckets. */
export function perSecondBuckets(times: readonly number[], t0: number): number[] {
  const buckets: number[] = [];
  for (const t of times) {
    const i = Math.max(0, Math.floor((t - t0) / 1000));
    while (buckets.length <= i) buckets.push(0);
    buckets[i] = (buckets[i] ?? 0) + 1;
  }
  return buckets;
}
