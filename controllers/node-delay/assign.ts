/**
 * The per-node reconciliation delay (`node-agent.gardener.cloud/reconciliation-delay`), assigned
 * so that (a) neighbouring delays are never closer than half the ideal `window / n`, (b) a node
 * joining or leaving changes at most 3 other nodes' delays, (c) nodes next to each other in delay
 * order are in different zones where possible, and the delays stay as even as a fresh assignment
 * however the node set grows and shrinks. docs/node-delay.md has the algorithm and the proofs; in
 * short:
 *
 * - Delays sit on a grid of C = 2^k slots, C the smallest power of two ≥ n; slot s is
 *   `min + ⌊s·window/C⌋`. Distinct slots are ≥ window/C > window/(2n) apart: (a) for free.
 * - The target is the first n slots in van der Corput order (0, C/2, C/4, 3C/4, ...), the most
 *   even set of n slots. Doubling the grid keeps it (slot s becomes 2s); right before the grid
 *   halves it is exactly the even slots, which the halved grid keeps.
 * - A node keeps its previous delay whenever that is a free slot of the current grid. New nodes
 *   take holes of the target, zones first, then the widest hole.
 * - A bounded re-spread moves nodes left outside the target (a leave takes a node out of it and
 *   shrinks it) into its holes, and swaps undo same-zone neighbours: 2 changes per join or leave
 *   between them. With no join or leave the result is a fixed point.
 *
 * Pure and deterministic: the output depends only on the input (nodes in any order).
 */
import { compareGoStrings, formatGoDuration, parseDelayAnnotation } from '../../api/index.js';
import { interleaveByZone } from '../../seed/shoot-nodes/zone-order.js';
import { Grid, gridSize } from './grid.js';
import { fillInOrder, newWork, occupy, placeInHole, repairZones, respread } from './placement.js';

export { gridSize, interleaveByZone };

export interface DelayNode {
  readonly name: string;
  /** `topology.kubernetes.io/zone`; missing or empty means unknown, which never counts as the same zone. */
  readonly zone?: string;
  /** The node's current `node-agent.gardener.cloud/reconciliation-delay` annotation, if any. */
  readonly annotation?: string;
}

export interface AssignDelaysInput {
  readonly nodes: readonly DelayNode[];
  /**
   * The previous assignment (nanoseconds), e.g. the last result. A node it does not list falls
   * back to its parsed annotation; unparsable annotations are ignored (the node counts as new).
   * Names it lists that are not in `nodes` count as nodes that left.
   */
  readonly previous?: ReadonlyMap<string, number>;
  /** Nanoseconds, 0 ≤ minDelay ≤ maxDelay. */
  readonly minDelay: number;
  readonly maxDelay: number;
}

export interface DelayAssignment {
  /** Delay per node in nanoseconds, in delay order (then name). */
  readonly delays: ReadonlyMap<string, number>;
  /** Nodes whose annotation must be written: missing, or a different text than the result's. */
  readonly patches: readonly string[];
  /** Nodes that had a previous delay and got another one. */
  readonly moved: readonly string[];
  /** Slots in the grid (C): neighbouring delays are at least ⌊window / C⌋ apart. */
  readonly slots: number;
  /** Joins plus leaves seen in this call (nodes without a previous delay, previous names gone). */
  readonly events: number;
}

/** Above this the slot arithmetic would leave float64's exact integers. */
export const MAX_NODES = 2 ** 26;
/** Changes to other nodes the re-spread and the zone repair may make per join or leave. */
export const REPAIR_BUDGET_PER_EVENT = 2;

export class DelayInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DelayInputError';
  }
}

function validate(input: AssignDelaysInput): void {
  const { minDelay, maxDelay } = input;
  if (!Number.isSafeInteger(minDelay) || minDelay < 0)
    throw new DelayInputError(`minDelay: ${minDelay} is not a non-negative whole number of nanoseconds`);
  if (!Number.isSafeInteger(maxDelay) || maxDelay < minDelay)
    throw new DelayInputError(`maxDelay: ${maxDelay} is below minDelay ${minDelay}`);
  if (input.nodes.length > MAX_NODES)
    throw new DelayInputError(`nodes: ${input.nodes.length} nodes exceed ${MAX_NODES}`);
  const seen = new Set<string>();
  input.nodes.forEach((node, i) => {
    if (node.name === '') throw new DelayInputError(`nodes[${i}].name: must not be empty`);
    if (seen.has(node.name)) throw new DelayInputError(`nodes[${i}].name: duplicate node "${node.name}"`);
    seen.add(node.name);
  });
}

/** Assigns every node a delay in [minDelay, maxDelay]; see the file comment and docs/node-delay.md. */
export function assignDelays(input: AssignDelaysInput): DelayAssignment {
  validate(input);
  const nodes = [...input.nodes].sort((a, b) => compareGoStrings(a.name, b.name));
  const n = nodes.length;
  const names = new Set(nodes.map((node) => node.name));
  const previous = nodes.map(
    (node) => input.previous?.get(node.name) ?? parseDelayAnnotation(node.annotation),
  );
  let events = previous.filter((p) => p === undefined).length;
  for (const name of input.previous?.keys() ?? []) if (!names.has(name)) events++;

  const window = input.maxDelay - input.minDelay;
  const size = gridSize(n);
  const grid = new Grid(input.minDelay, window, size);
  const values = new Array<number>(n);

  if (window === 0 || window < size) {
    // No room for distinct nanosecond slots: every node on the grid in zone order, no memory.
    const order = interleaveByZone(nodes.map((node, index) => ({ name: node.name, zone: node.zone, index })));
    const slots = grid.firstSlots(n);
    order.forEach((item, i) => {
      values[item.index] = grid.value(slots[i]!);
    });
  } else {
    const w = newWork(
      grid,
      nodes.map((node) => node.zone),
    );
    // Keep every previous delay that is a free slot of this grid (name order decides a tie).
    nodes.forEach((_, index) => {
      const p = previous[index];
      const s = p === undefined ? undefined : grid.slotOf(p);
      if (s !== undefined && w.owner[s] === -1) {
        occupy(w, index, s);
        w.keptSlot[index] = s;
      }
    });
    const unplaced = interleaveByZone(
      nodes
        .map((node, index) => ({ name: node.name, zone: node.zone, index }))
        .filter((x) => w.slot[x.index] === -1),
    );
    if (w.occupied.length === 0) {
      // Nothing to keep (first assignment, new window): the first n slots in van der Corput order.
      grid.firstSlots(n).forEach((s, i) => {
        occupy(w, unplaced[i]!.index, s);
      });
    } else if (unplaced.length === size - w.occupied.length) {
      // The grid will be full (always so right after it halved): fill the free slots in delay order.
      fillInOrder(
        w,
        unplaced.map((item) => item.index),
      );
      repairZones(w, REPAIR_BUDGET_PER_EVENT * events);
    } else {
      for (const item of unplaced) placeInHole(w, item.index);
      repairZones(w, respread(w, REPAIR_BUDGET_PER_EVENT * events));
    }
    nodes.forEach((_, index) => {
      values[index] = grid.value(w.slot[index]!);
    });
  }

  const order = nodes
    .map((node, index) => ({ node, index, value: values[index]! }))
    .sort((a, b) => a.value - b.value || compareGoStrings(a.node.name, b.node.name));
  const delays = new Map(order.map((x) => [x.node.name, x.value]));
  const patches = order
    .filter((x) => x.node.annotation === undefined || x.node.annotation !== formatGoDuration(x.value))
    .map((x) => x.node.name);
  const moved = order
    .filter((x) => previous[x.index] !== undefined && previous[x.index] !== x.value)
    .map((x) => x.node.name);
  return { delays, patches, moved, slots: size, events };
}
