/**
 * The node-delay reconciler: one reconcile per shoot plans every Node's reconciliation delay
 * (decide.ts) and patches only the Nodes whose annotation
 * `node-agent.gardener.cloud/reconciliation-delay` must change, each with optimistic locking (the
 * merge patch carries the resourceVersion the decision was made on; a 409 requeues).
 */
import { ANNOTATION } from '../../api/index.js';
import type { ReconcileContext, ReconcileResult } from '../../runtime/controller.js';
import type { EventRecorder } from '../../runtime/events.js';
import { forEachLimited } from '../../runtime/for-each-limited.js';
import { type DelayWindow, delayWindow, type NodeDelayPatchBody, planNodeDelays } from './decide.js';
import type { NodeDelayMetrics } from './metrics.js';

/** The outcome of one patch. */
export type PatchOutcome = 'patched' | 'conflict' | 'gone';

/** Writes one Node's patch (merge patch); a 409 is `conflict`, a 404 `gone`, anything else throws. */
export interface NodePatcher {
  patch(name: string, body: NodeDelayPatchBody): Promise<PatchOutcome>;
}

export interface NodeDelayReconcilerOptions {
  /** The shoot namespace in the seed (the Cluster's name); the metrics' `shoot` label. */
  readonly shoot: string;
  /** The shoot's annotations, read at every reconcile (the Cluster may change). */
  readonly shootAnnotations: () => Readonly<Record<string, string>> | undefined;
  /** The Nodes in the cache. */
  readonly nodes: () => readonly unknown[];
  readonly patcher: NodePatcher;
  /** Whether to act for the shoot now (default: always); false: nothing is written, the next resync looks again. */
  readonly acts?: () => boolean;
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
    if (this.o.acts?.() === false) {
      // what gardener-resource-manager writes is its own; acting again starts from the Nodes
      this.previous = undefined;
      return { requeueAfterMs: this.o.resyncPeriodMs };
    }
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
