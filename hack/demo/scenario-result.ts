/**
 * What the demo's scenario measures (ScenarioResult, for the summary table, the SVG chart and the
 * e2e assertions), its timeline, and where its nodes go (pools, zones).
 */
import type { NodeSpec } from './node.js';

export const DEFAULT_MAX_DELAY_SECONDS = 20;

export type Phase = 'setup' | 'legacy' | 'migration' | 'rollout' | 'tokens' | 'summary' | 'cleanup';

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
    /** The node's reconciliation delay, from its annotation. */
    readonly delayMs: number;
    /** When the agent saw the changed OSC secret and queued it with its delay (agent log). */
    readonly enqueuedAt: number;
    /** The delay the agent used (agent log). */
    readonly enqueuedDelayMs: number;
    /** Its first systemd call of the apply (recorded with time). */
    readonly appliedAt: number;
    readonly reportedAt: number;
    readonly restarts: readonly { unit: string; at: number }[];
    readonly checksumOk: boolean;
  };
  readonly token: { readonly updatedAt: number; readonly ok: boolean };
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
    Record<'setup' | 'legacy' | 'migration' | 'rollout' | 'tokens', { from: number; to: number }>
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
    readonly change: string;
    /** When the demo changed the Cluster (ms since start). */
    readonly changedAt: number;
    /** When the first pool's OSC secret changed (ms since start): t = 0 of the chart. */
    readonly secretsChangedAt: number;
    readonly spanMs: number;
    /** kubelet restarts per 1 s bucket from secretsChangedAt on. */
    readonly kubeletRestartsPerSecond: readonly number[];
    readonly maxKubeletRestartsInOneSecond: number;
  };
  readonly tokens: { readonly rotatedAt: number; readonly newTokenAt: number; readonly allUpdatedAt: number };
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
      name: `node-${String(i + 1).padStart(width, '0')}`,
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
