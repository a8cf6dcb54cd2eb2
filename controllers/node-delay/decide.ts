/**
 * The node-delay decision (pure): the assignment of every Node of a shoot (`assignDelays`,
 * docs/node-delay.md) and the patches it needs, each with the resourceVersion it was decided on,
 * and the window a shoot's annotations give. The previous assignment is the last result of this
 * process; Nodes it does not know (every Node after a restart) keep the delay in their current
 * annotation, so the stability guarantee holds across restarts, and a Node whose annotation was
 * edited by hand is set back to its delay. Nodes being deleted take part in nothing: they count as
 * having left and are never patched.
 */
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

export type { NodeObject } from '../../api/index.js';

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

/**
 * The window of a shoot: its max delay (gardener v1.91.4 pkg/gardenlet/operation/shoot/shoot.go,
 * api/max-delay.ts) and the configured min.
 */
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
