/**
 * Where the rollout of each worker pool of a shoot stands: the state the gate decides from and
 * the status operators read, one YAML document per pool (key `<pool>.yaml`) in the seed ConfigMap
 * `gardener-node-agent-rollout` of the shoot namespace. It lives in the API, not in memory, so a
 * restarted controller-manager resumes mid-wave without skipping the gate. Times are RFC 3339 in
 * the ConfigMap and milliseconds since the epoch in memory.
 */
import * as z from 'zod';
import { parseYaml, stringifyYaml } from '../../api/index.js';

export const PHASES = ['Progressing', 'Halted', 'Unguarded', 'Completed'] as const;
export type Phase = (typeof PHASES)[number];

/** A node of the current wave. */
export interface WaveMember {
  readonly node: string;
  /** When it gets its permission (the wave's start plus its share of the delay window). */
  readonly grantAt: number;
  readonly grantedAt?: number;
  /** Ready with a fresh Lease when it got its permission: NotReady later counts against the change. */
  readonly baseline?: boolean;
  /** When the seed first saw it report success for the target. */
  readonly succeededAt?: number;
  /** Since when it is Ready with a fresh Lease after its success (continuously, as far as seen). */
  readonly healthySince?: number;
  /** The wave waits for it beyond `waveTimeout` and that was announced (stall.ts). */
  readonly stalled?: boolean;
}

export interface Announcement {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface NodeFailure {
  readonly node: string;
  readonly reason: string;
  readonly message: string;
  readonly at: number;
  /** Accepted by a resume: it no longer counts toward a halt. */
  readonly accepted?: boolean;
}

export interface PoolRollout {
  /** The checksum rolled out (`checksum/data-script` of the pool's OSC secret). */
  readonly target: string;
  readonly phase: Phase;
  readonly startedAt: number;
  /** Waves started so far (0: none yet). */
  readonly wave: number;
  readonly waveStartedAt?: number;
  /** The size of the last wave that counted toward growth (0: the canary is next). */
  readonly lastWaveSize: number;
  readonly members: readonly WaveMember[];
  readonly failures: readonly NodeFailure[];
  /**
   * Failures beyond the recorded ones (bound.ts): counted, not named; `accepted` of them by a
   * resume. They count toward a halt like recorded ones.
   */
  readonly omittedFailures?: { readonly count: number; readonly accepted: number };
  /** Nodes to reach first: the failed nodes of the rollout this one superseded. */
  readonly first: readonly string[];
  /**
   * Nodes that passed the gate in this rollout, watched until it ends: one that goes NotReady or
   * stale later still counts against the configuration (cleared once Completed).
   */
  readonly passed?: readonly string[];
  /** Nodes a stalled wave left out of this rollout (stall.ts); they keep what they run. */
  readonly skipped?: readonly string[];
  /** The nodes the current wave waits for beyond `waveTimeout`, each `node: why`. */
  readonly stalled?: readonly string[];
  /** The target of the rollout this one superseded. */
  readonly supersedes?: string;
  readonly haltedSince?: number;
  /** When every node was done. */
  readonly completedAt?: number;
  /** Why it halted: node, checksum, why. */
  readonly reason?: string;
  /**
   * Transitions decided but not announced yet (events not known to be written): announced at the
   * next reconcile if this one failed after writing the status. Oldest first.
   */
  readonly announce?: readonly Announcement[];
  /** Counts at the last decision, for the status. */
  readonly updated: number;
  readonly failed: number;
  readonly pending: number;
}

const time = z.string().transform((text, ctx) => {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) {
    ctx.addIssue({ code: 'custom', message: `not an RFC 3339 time: ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return ms;
});

const PoolRolloutSchema = z.object({
  target: z.string().min(1),
  phase: z.enum(PHASES),
  startedAt: time,
  wave: z.number().int().min(0),
  waveStartedAt: time.optional(),
  lastWaveSize: z.number().int().min(0).default(0),
  members: z
    .array(
      z.object({
        node: z.string().min(1),
        grantAt: time,
        grantedAt: time.optional(),
        baseline: z.boolean().optional(),
        succeededAt: time.optional(),
        healthySince: time.optional(),
        stalled: z.boolean().optional(),
      }),
    )
    .default([]),
  failures: z
    .array(
      z.object({
        node: z.string().min(1),
        reason: z.string(),
        message: z.string(),
        at: time,
        accepted: z.boolean().optional(),
      }),
    )
    .default([]),
  omittedFailures: z.object({ count: z.number().int().min(0), accepted: z.number().int().min(0) }).optional(),
  first: z.array(z.string()).default([]),
  passed: z.array(z.string()).optional(),
  skipped: z.array(z.string()).optional(),
  stalled: z.array(z.string()).optional(),
  supersedes: z.string().optional(),
  haltedSince: time.optional(),
  completedAt: time.optional(),
  reason: z.string().optional(),
  announce: z
    .array(z.object({ type: z.enum(['Normal', 'Warning']), reason: z.string(), message: z.string() }))
    .optional(),
  updated: z.number().int().min(0).default(0),
  failed: z.number().int().min(0).default(0),
  pending: z.number().int().min(0).default(0),
});

const KEY_SUFFIX = '.yaml';

export type RolloutStatus = ReadonlyMap<string, PoolRollout>;

export class RolloutStatusError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RolloutStatusError';
  }
}

/** The pools of a status ConfigMap's data; a key that does not decode is an error naming it. */
export function decodeRolloutStatus(
  data: Readonly<Record<string, string>> | null | undefined,
): RolloutStatus {
  const out = new Map<string, PoolRollout>();
  for (const [key, text] of Object.entries(data ?? {})) {
    if (!key.endsWith(KEY_SUFFIX)) continue;
    let input: unknown;
    try {
      input = parseYaml(text);
    } catch (e) {
      throw new RolloutStatusError(`${key}: ${(e as Error).message}`);
    }
    const parsed = PoolRolloutSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new RolloutStatusError(`${key}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    out.set(key.slice(0, -KEY_SUFFIX.length), parsed.data);
  }
  return out;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function plain(pool: PoolRollout): Record<string, unknown> {
  const drop = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return drop({
    target: pool.target,
    phase: pool.phase,
    startedAt: iso(pool.startedAt),
    wave: pool.wave,
    waveStartedAt: iso(pool.waveStartedAt),
    lastWaveSize: pool.lastWaveSize,
    updated: pool.updated,
    failed: pool.failed,
    pending: pool.pending,
    haltedSince: iso(pool.haltedSince),
    completedAt: iso(pool.completedAt),
    reason: pool.reason,
    supersedes: pool.supersedes,
    first: pool.first.length > 0 ? pool.first : undefined,
    passed: pool.passed && pool.passed.length > 0 ? pool.passed : undefined,
    skipped: pool.skipped && pool.skipped.length > 0 ? pool.skipped : undefined,
    stalled: pool.stalled && pool.stalled.length > 0 ? pool.stalled : undefined,
    members: pool.members.map((m) =>
      drop({
        node: m.node,
        grantAt: iso(m.grantAt),
        grantedAt: iso(m.grantedAt),
        baseline: m.baseline,
        succeededAt: iso(m.succeededAt),
        healthySince: iso(m.healthySince),
        stalled: m.stalled,
      }),
    ),
    failures: pool.failures.map((f) =>
      drop({ node: f.node, reason: f.reason, message: f.message, at: iso(f.at), accepted: f.accepted }),
    ),
    omittedFailures: pool.omittedFailures,
    announce: pool.announce && pool.announce.length > 0 ? pool.announce : undefined,
  });
}

/** The ConfigMap data of a status: one key per pool, deterministic YAML. */
export function encodeRolloutStatus(status: RolloutStatus): Record<string, string> {
  const data: Record<string, string> = {};
  for (const pool of [...status.keys()].sort())
    data[`${pool}${KEY_SUFFIX}`] = stringifyYaml(plain(status.get(pool)!));
  return data;
}
