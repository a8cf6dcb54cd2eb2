/**
 * The node-delay reconciler: one reconcile per shoot computes every Node's reconciliation delay
 * (`assignDelays`, docs/node-delay.md) and patches only the Nodes whose annotation
 * `node-agent.gardener.cloud/reconciliation-delay` must change, each with optimistic locking (the
 * merge patch carries the resourceVersion the decision was made on; a 409 requeues).
 *
 * The previous assignment is the last result of this process; Nodes it does not know (every Node
 * after a restart) keep the delay in their current annotation, so the stability guarantee holds
 * across restarts, and a Node whose annotation was edited by hand is set back to its delay.
 * Nodes being deleted take part in nothing: they count as having left and are never patched.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import * as z from 'zod';
import {
  ANNOTATION,
  formatGoDuration,
  LABEL,
  type MaxDelay,
  maxDelayFromShoot,
  NANOS_PER_SECOND,
  parseDelayAnnotation,
} from '../../api/index.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import { assignDelays, type DelayAssignment, type DelayNode } from './assign.js';

/** The fields of a Node the assignment reads; everything else is ignored (tolerant in). */
const NodeSubset = z.object({
  metadata: z.object({
    name: z.string().min(1),
    resourceVersion: z.string().optional(),
    deletionTimestamp: z.string().nullable().optional(),
    labels: z.record(z.string(), z.string()).nullable().optional(),
    annotations: z.record(z.string(), z.string()).nullable().optional(),
  }),
});

/** A Node as the informer holds it (plain JSON). */
export interface NodeObject {
  readonly metadata?: {
    readonly name?: string;
    readonly resourceVersion?: string;
    readonly deletionTimestamp?: string | null;
    readonly labels?: Readonly<Record<string, string>> | null;
    readonly annotations?: Readonly<Record<string, string>> | null;
  };
}

/** The merge patch of one Node: its delay annotation, and the resourceVersion it was decided on. */
export interface NodeDelayPatchBody {
  readonly metadata: {
    readonly resourceVersion?: string;
    readonly annotations: { readonly [ANNOTATION.reconciliationDelay]: string };
  };
}

/**
 * Why a node's annotation is written: `new` (it had no valid delay), `moved` (the assignment gave
 * it another delay), `corrected` (its delay stays, but the annotation's text differs, e.g. edited
 * by hand or written as `60s` instead of `1m0s`).
 */
export type PatchReason = 'new' | 'moved' | 'corrected';

export interface NodeDelayPatch {
  readonly name: string;
  readonly delay: number;
  readonly reason: PatchReason;
  readonly body: NodeDelayPatchBody;
}

export interface NodeDelayPlan {
  readonly assignment: DelayAssignment;
  /** In delay order (then name). */
  readonly patches: readonly NodeDelayPatch[];
  /** Nodes left out: being deleted. */
  readonly deleting: readonly string[];
  /** Nodes left out because they do not decode (with the reason). */
  readonly invalid: readonly string[];
}

export interface PlanInput {
  readonly nodes: readonly unknown[];
  /** The last assignment of this process (nanoseconds); nodes it lacks use their annotation. */
  readonly previous?: ReadonlyMap<string, number>;
  /** Nanoseconds, 0 ≤ minDelay ≤ maxDelay. */
  readonly minDelay: number;
  readonly maxDelay: number;
}

export function delayPatchBody(resourceVersion: string | undefined, delay: number): NodeDelayPatchBody {
  return {
    metadata: {
      ...(resourceVersion === undefined ? {} : { resourceVersion }),
      annotations: { [ANNOTATION.reconciliationDelay]: formatGoDuration(delay) },
    },
  };
}

/** The assignment of the nodes and the patches it needs; pure. */
export function planNodeDelays(input: PlanInput): NodeDelayPlan {
  const deleting: string[] = [];
  const invalid: string[] = [];
  const live = new Map<string, { node: DelayNode; resourceVersion: string | undefined }>();
  input.nodes.forEach((raw, i) => {
    const parsed = NodeSubset.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      invalid.push(`nodes[${i}].${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
      return;
    }
    const { metadata } = parsed.data;
    if (metadata.deletionTimestamp) {
      deleting.push(metadata.name);
      return;
    }
    if (live.has(metadata.name)) return;
    live.set(metadata.name, {
      node: {
        name: metadata.name,
        zone: metadata.labels?.[LABEL.zone],
        annotation: metadata.annotations?.[ANNOTATION.reconciliationDelay],
      },
      resourceVersion: metadata.resourceVersion,
    });
  });
  const nodes = [...live.values()].map((x) => x.node);
  const assignment = assignDelays({
    nodes,
    previous: input.previous,
    minDelay: input.minDelay,
    maxDelay: input.maxDelay,
  });
  const moved = new Set(assignment.moved);
  const patches = assignment.patches.map((name): NodeDelayPatch => {
    const { node, resourceVersion } = live.get(name)!;
    const delay = assignment.delays.get(name)!;
    const before = input.previous?.get(name) ?? parseDelayAnnotation(node.annotation);
    const reason: PatchReason = before === undefined ? 'new' : moved.has(name) ? 'moved' : 'corrected';
    return { name, delay, reason, body: delayPatchBody(resourceVersion, delay) };
  });
  return { assignment, patches, deleting: deleting.sort(), invalid };
}

/** The window of a shoot: its max delay (seed-side §7.1, api/max-delay.ts) and the configured min. */
export interface DelayWindow {
  readonly minDelay: number;
  readonly maxDelay: number;
  readonly maxDelaySource: MaxDelay;
  /** Set when the configured minimum exceeds the shoot's maximum and was lowered to it. */
  readonly minLowered?: string;
}

export function delayWindow(
  shootAnnotations: Readonly<Record<string, string>> | undefined,
  minDelay: number,
): DelayWindow {
  const max = maxDelayFromShoot(shootAnnotations);
  const maxDelay = max.seconds * NANOS_PER_SECOND;
  if (minDelay <= maxDelay) return { minDelay, maxDelay, maxDelaySource: max };
  return {
    minDelay: maxDelay,
    maxDelay,
    maxDelaySource: max,
    minLowered: `the minimum delay ${formatGoDuration(minDelay)} exceeds the shoot's maximum ${formatGoDuration(maxDelay)}; every node gets ${formatGoDuration(maxDelay)}`,
  };
}

/** The outcome of one patch. */
export type PatchOutcome = 'patched' | 'conflict' | 'gone';

/** Writes one Node's patch (merge patch); a 409 is `conflict`, a 404 `gone`, anything else throws. */
export interface NodePatcher {
  patch(name: string, body: NodeDelayPatchBody): Promise<PatchOutcome>;
}

export interface NodeDelayMetrics {
  /** Nodes whose annotation was written, by reason (new, moved, corrected). */
  readonly nodesAnnotated: Counter<'shoot' | 'reason'>;
  /** Patch requests, by result (patched, conflict, gone, error). */
  readonly patches: Counter<'shoot' | 'result'>;
  /** Nodes with an assigned delay (not being deleted). */
  readonly nodes: Gauge<'shoot'>;
}

const metricsByRegistry = new WeakMap<Registry, NodeDelayMetrics>();

/** The controller's metrics in `registry` (created once per registry, shared by every shoot). */
export function nodeDelayMetrics(registry: Registry): NodeDelayMetrics {
  const existing = metricsByRegistry.get(registry);
  if (existing) return existing;
  const registers = [registry];
  const metrics: NodeDelayMetrics = {
    nodesAnnotated: new Counter({
      name: 'gardener_osc_node_delay_nodes_annotated_total',
      help: 'Nodes whose reconciliation-delay annotation was written, by reason (new, moved, corrected)',
      labelNames: ['shoot', 'reason'],
      registers,
    }),
    patches: new Counter({
      name: 'gardener_osc_node_delay_patches_total',
      help: 'Node patches of the reconciliation-delay annotation, by result (patched, conflict, gone, error)',
      labelNames: ['shoot', 'result'],
      registers,
    }),
    nodes: new Gauge({
      name: 'gardener_osc_node_delay_nodes',
      help: 'Nodes of the shoot with an assigned reconciliation delay',
      labelNames: ['shoot'],
      registers,
    }),
  };
  metricsByRegistry.set(registry, metrics);
  return metrics;
}

export interface NodeDelayReconcilerOptions {
  /** The shoot namespace in the seed (the Cluster's name); the metrics' `shoot` label. */
  readonly shoot: string;
  /** The shoot's annotations, read at every reconcile (the Cluster may change). */
  readonly shootAnnotations: () => Readonly<Record<string, string>> | undefined;
  /** The Nodes in the cache. */
  readonly nodes: () => readonly unknown[];
  readonly patcher: NodePatcher;
  /** Nanoseconds. */
  readonly minDelay: number;
  readonly resyncPeriodMs: number;
  readonly patchConcurrency: number;
  readonly recorder?: EventRecorder;
  /** The Cluster the Warning events go to. */
  readonly eventObject: Parameters<EventRecorder['event']>[0];
  readonly metrics?: NodeDelayMetrics;
}

const CONFLICT_BACKOFF = { baseMs: 100, maxMs: 30_000 } as const;

export class NodeDelayReconciler {
  private previous: Map<string, number> | undefined;
  private lastWarning: string | undefined;
  private conflictRounds = 0;

  constructor(private readonly o: NodeDelayReconcilerOptions) {}

  /** The last assignment (for tests and diagnostics). */
  get assignment(): ReadonlyMap<string, number> | undefined {
    return this.previous;
  }

  async reconcile(_key: string, ctx: ReconcileContext): Promise<ReconcileResult> {
    const window = delayWindow(this.o.shootAnnotations(), this.o.minDelay);
    await this.warnAboutWindow(window, ctx);
    const plan = planNodeDelays({
      nodes: this.o.nodes(),
      previous: this.previous,
      minDelay: window.minDelay,
      maxDelay: window.maxDelay,
    });
    for (const problem of plan.invalid) ctx.log.warn({ problem }, 'Ignoring a Node that does not decode');
    this.previous = new Map(plan.assignment.delays);
    this.o.metrics?.nodes.set({ shoot: this.o.shoot }, plan.assignment.delays.size);

    let conflicts = 0;
    await forEachLimited(plan.patches, this.o.patchConcurrency, async (p) => {
      if (ctx.signal.aborted) return;
      let outcome: PatchOutcome;
      try {
        outcome = await this.o.patcher.patch(p.name, p.body);
      } catch (error) {
        this.o.metrics?.patches.inc({ shoot: this.o.shoot, result: 'error' });
        throw error;
      }
      this.o.metrics?.patches.inc({ shoot: this.o.shoot, result: outcome });
      if (outcome === 'conflict') conflicts++;
      if (outcome !== 'patched') return;
      this.o.metrics?.nodesAnnotated.inc({ shoot: this.o.shoot, reason: p.reason });
      ctx.log.debug(
        {
          node: p.name,
          delay: p.body.metadata.annotations[ANNOTATION.reconciliationDelay],
          reason: p.reason,
        },
        'Annotated Node with its reconciliation delay',
      );
    });
    if (plan.patches.length > 0)
      ctx.log.info(
        {
          nodes: plan.assignment.delays.size,
          patches: plan.patches.length,
          moved: plan.assignment.moved.length,
          conflicts,
          slots: plan.assignment.slots,
        },
        'Assigned reconciliation delays',
      );
    if (conflicts > 0) {
      // The cache was behind the server: decide again on the newer Nodes, backing off while it stays so.
      const delay = Math.min(CONFLICT_BACKOFF.maxMs, CONFLICT_BACKOFF.baseMs * 2 ** this.conflictRounds);
      this.conflictRounds = Math.min(this.conflictRounds + 1, 30);
      return { requeueAfterMs: delay };
    }
    this.conflictRounds = 0;
    return { requeueAfterMs: this.o.resyncPeriodMs };
  }

  /** A rejected or ignored max delay (or a minimum above it) is a Warning on the Cluster, once per text. */
  private async warnAboutWindow(window: DelayWindow, ctx: ReconcileContext): Promise<void> {
    const source = window.maxDelaySource;
    const warning =
      source.source === 'rejected'
        ? { reason: 'MaxDelayRejected', message: `${source.reason}; using the default ${source.seconds}s` }
        : source.source === 'ignored'
          ? { reason: 'MaxDelayIgnored', message: `${source.reason}; using the default ${source.seconds}s` }
          : window.minLowered
            ? { reason: 'MinDelayAboveMaxDelay', message: window.minLowered }
            : undefined;
    const text = warning ? `${warning.reason}: ${warning.message}` : undefined;
    if (text === this.lastWarning) return;
    this.lastWarning = text;
    if (!warning) return;
    ctx.log.warn({ reason: warning.reason }, warning.message);
    await this.o.recorder?.event(this.o.eventObject, 'Warning', warning.reason, warning.message);
  }
}

/** Runs `fn` over `items` with at most `limit` at a time; the first error is thrown after all settled. */
async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await fn(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.error;
}
