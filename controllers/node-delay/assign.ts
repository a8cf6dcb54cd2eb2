/**
 * The per-node reconciliation delay (`node-agent.gardener.cloud/reconciliation-delay`), assigned
 * so that (a) neighbouring delays are never closer than half the ideal `window / n`, (b) a node
 * joining or leaving changes at most 3 other nodes' delays, amortised, and (c) nodes next to each
 * other in delay order are in different zones where possible. docs/node-delay.md has the
 * algorithm and the proofs; in short:
 *
 * - Delays sit on a grid of C = 2^k slots, C the smallest power of two ≥ n; slot s is
 *   `min + ⌊s·window/C⌋`. Distinct slots are ≥ window/C > window/(2n) apart: (a) for free.
 * - A node keeps its previous delay whenever that is a free slot of the current grid. Doubling the
 *   grid keeps every slot (slot s becomes 2s), so growing never moves anyone; halving moves only
 *   the nodes on odd slots, which joins prefer to avoid (van der Corput order).
 * - New nodes (and the few that must move) take free slots chosen for zones first, then the
 *   lowest slot level (van der Corput order, for an even spread), then the widest hole.
 * - A bounded repair (2 changes per join or leave) moves or swaps nodes to undo same-zone
 *   neighbours that leaves create; with no join or leave the result is a fixed point.
 *
 * Pure and deterministic: the output depends only on the input (nodes in any order).
 */
import { compareGoStrings, formatGoDuration, parseDelayAnnotation } from '../../api/index.js';

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
/** Changes to other nodes the zone repair may make per join or leave. */
export const REPAIR_BUDGET_PER_EVENT = 2;

export class DelayInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DelayInputError';
  }
}

export function gridSize(n: number): number {
  let size = 1;
  while (size < n) size *= 2;
  return size;
}

/** The slot grid: slot s at `min + ⌊s·window/size⌋`, exact in integers (window = q·size + r). */
class Grid {
  readonly bits: number;
  private readonly q: number;
  private readonly r: number;

  constructor(
    readonly min: number,
    readonly window: number,
    readonly size: number,
  ) {
    this.bits = Math.log2(size);
    this.q = Math.floor(window / size);
    this.r = window - this.q * size;
  }

  value(slot: number): number {
    return this.min + slot * this.q + Math.floor((slot * this.r) / this.size);
  }

  /** The slot whose value is exactly `value`, if any (slots are distinct when window ≥ size). */
  slotOf(value: number): number | undefined {
    const offset = value - this.min;
    if (offset < 0 || offset > this.window) return undefined;
    const guess = Math.floor((offset * this.size) / this.window);
    for (const s of [guess, guess + 1, guess - 1]) {
      if (s >= 0 && s < this.size && this.value(s) === value) return s;
    }
    return undefined;
  }

  /** 0 for slot 0, else k − trailing zeros: a slot of level ℓ exists in every grid of 2^ℓ or more slots. */
  level(slot: number): number {
    if (slot === 0) return 0;
    return this.bits - (31 - Math.clz32(slot & -slot));
  }

  /** Bit reversal in k bits: the van der Corput rank of a slot (0, C/2, C/4, 3C/4, ...). */
  rank(slot: number): number {
    let out = 0;
    let s = slot;
    for (let i = 0; i < this.bits; i++) {
      out = out * 2 + (s & 1);
      s >>>= 1;
    }
    return out;
  }
}

const sameZone = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && a !== '' && a === b;

/**
 * The nodes in an order that interleaves zones: repeatedly the zone with the most nodes left that
 * is not the zone just used (ties: the least recently used, then the zone name), names ascending
 * within a zone. For equal zones this is round robin; it has no same-zone neighbours whenever the
 * largest zone holds at most ⌈n/2⌉ nodes, and the fewest possible (2·largest − n − 1) otherwise.
 */
export function interleaveByZone<T extends { readonly name: string; readonly zone?: string }>(
  items: readonly T[],
): T[] {
  const groups = new Map<string, T[]>();
  for (const item of [...items].sort((a, b) => compareGoStrings(a.name, b.name))) {
    const zone = item.zone ?? '';
    const group = groups.get(zone);
    if (group) group.push(item);
    else groups.set(zone, [item]);
  }
  const zones = [...groups.keys()].sort(compareGoStrings);
  const next = new Map(zones.map((z) => [z, 0]));
  const lastUsed = new Map(zones.map((z) => [z, -1]));
  const out: T[] = [];
  let last: string | undefined;
  for (let step = 0; step < items.length; step++) {
    // Smallest key wins: [repeats the last zone, −nodes left, last used]; zones are in name order.
    let best: string | undefined;
    let bestKey: number[] = [];
    for (const z of zones) {
      const left = groups.get(z)!.length - next.get(z)!;
      if (left === 0) continue;
      const key = [z === last && z !== '' ? 1 : 0, -left, lastUsed.get(z)!];
      if (best === undefined || lessKey(key, bestKey)) {
        best = z;
        bestKey = key;
      }
    }
    const zone = best!;
    const index = next.get(zone)!;
    out.push(groups.get(zone)![index]!);
    next.set(zone, index + 1);
    lastUsed.set(zone, step);
    last = zone;
  }
  return out;
}

interface Work {
  readonly grid: Grid;
  readonly zones: readonly (string | undefined)[];
  /** Node index per slot, −1 when free. */
  readonly owner: Int32Array;
  /** Slot per node index, −1 while unplaced. */
  readonly slot: Int32Array;
  /** The slot each node kept from its previous delay, −1 if none. */
  readonly keptSlot: Int32Array;
  /** Occupied slots, ascending. */
  readonly occupied: number[];
}

function lowerBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function occupy(w: Work, node: number, slot: number): void {
  w.owner[slot] = node;
  w.slot[node] = slot;
  w.occupied.splice(lowerBound(w.occupied, slot), 0, slot);
}

function vacate(w: Work, node: number): void {
  const slot = w.slot[node]!;
  w.owner[slot] = -1;
  w.slot[node] = -1;
  w.occupied.splice(lowerBound(w.occupied, slot), 1);
}

function same(w: Work, a: number, b: number): number {
  return a >= 0 && b >= 0 && sameZone(w.zones[a], w.zones[b]) ? 1 : 0;
}

/** Node owning the i-th occupied slot, −1 out of range. */
function at(w: Work, i: number): number {
  return i >= 0 && i < w.occupied.length ? w.owner[w.occupied[i]!]! : -1;
}

interface Candidate {
  readonly slot: number;
  readonly key: readonly number[];
}

function lessKey(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/**
 * The best free slot in the run of free slots strictly between occupied slots `lo` and `hi`
 * (−1 / size for the ends), ranked by level, then distance to the nearest occupied slot
 * (larger first), then van der Corput rank; only slots of level ≤ maxLevel.
 */
function bestInRun(w: Work, lo: number, hi: number, maxLevel: number): Candidate | undefined {
  let best: Candidate | undefined;
  for (let s = lo + 1; s < hi; s++) {
    const level = w.grid.level(s);
    if (level > maxLevel) continue;
    const left = lo >= 0 ? s - lo : Number.POSITIVE_INFINITY;
    const right = hi < w.grid.size ? hi - s : Number.POSITIVE_INFINITY;
    const distance = Math.min(left, right);
    const key = [level, distance === Number.POSITIVE_INFINITY ? -w.grid.size : -distance, w.grid.rank(s)];
    if (!best || lessKey(key, best.key)) best = { slot: s, key };
  }
  return best;
}

/** Change in same-zone neighbours when `node` is put between the nodes `left` and `right`. */
function insertDelta(w: Work, node: number, left: number, right: number): number {
  return same(w, left, node) + same(w, node, right) - same(w, left, right);
}

/** Places `node` (unplaced) in the best free slot: zones first, then spread (see bestInRun). */
function place(w: Work, node: number): void {
  const occ = w.occupied;
  let best: Candidate | undefined;
  for (let i = 0; i <= occ.length; i++) {
    const lo = i === 0 ? -1 : occ[i - 1]!;
    const hi = i === occ.length ? w.grid.size : occ[i]!;
    if (hi - lo < 2) continue;
    const delta = insertDelta(w, node, at(w, i - 1), at(w, i));
    const run = bestInRun(w, lo, hi, w.grid.bits);
    if (!run) continue;
    const key = [delta > 0 ? 1 : 0, run.key[0]!, delta, ...run.key.slice(1)];
    if (!best || lessKey(key, best.key)) best = { slot: run.slot, key };
  }
  occupy(w, node, best!.slot);
}

/**
 * Fills every free slot, lowest first, each with the node whose zone differs from the slot's
 * neighbours (the node just before, the node just after if already there), taking from the zone
 * with the most nodes left (ties: least recently used, then the first in `nodes`' order).
 */
function fillInOrder(w: Work, nodes: readonly number[]): void {
  const byZone = new Map<string, number[]>();
  for (const node of nodes) {
    const zone = w.zones[node] ?? '';
    const list = byZone.get(zone);
    if (list) list.push(node);
    else byZone.set(zone, [node]);
  }
  const lastUsed = new Map<string, number>();
  for (let s = 0, step = 0; s < w.grid.size; s++) {
    if (w.owner[s] !== -1) continue;
    const left = s > 0 ? w.owner[s - 1]! : -1;
    const right = s + 1 < w.grid.size ? w.owner[s + 1]! : -1;
    let best: string | undefined;
    let bestKey: number[] = [];
    for (const [zone, list] of byZone) {
      if (list.length === 0) continue;
      const first = list[0]!;
      const key = [same(w, left, first) + same(w, first, right), -list.length, lastUsed.get(zone) ?? -1];
      if (best === undefined || lessKey(key, bestKey)) {
        best = zone;
        bestKey = key;
      }
    }
    occupy(w, byZone.get(best!)!.shift()!, s);
    lastUsed.set(best!, step++);
  }
}

interface Action {
  readonly cost: number;
  readonly gain: number;
  readonly node: number;
  /** A free slot (move) or another node (swap). */
  readonly slot?: number;
  readonly other?: number;
  readonly key: readonly number[];
}

/** 1 if changing `node` now adds a changed annotation (it still holds its previous delay). */
function costOf(w: Work, node: number): number {
  return w.slot[node] === w.keptSlot[node] ? 1 : 0;
}

/**
 * The best strictly improving move (to a free slot of no higher level, so halving never gets
 * dearer) or swap for one of the nodes in a same-zone pair, within `budget` changes.
 */
function bestRepair(w: Work, budget: number): Action | undefined {
  const occ = w.occupied;
  const candidates = new Set<number>();
  for (let i = 0; i + 1 < occ.length; i++) {
    if (same(w, at(w, i), at(w, i + 1))) {
      candidates.add(i);
      candidates.add(i + 1);
    }
  }
  let best: Action | undefined;
  const consider = (a: Action) => {
    if (a.gain <= 0 || a.cost > budget) return;
    if (!best || lessKey(a.key, best.key)) best = a;
  };
  for (const i of [...candidates].sort((a, b) => a - b)) {
    const x = at(w, i);
    const prev = at(w, i - 1);
    const next = at(w, i + 1);
    const removeDelta = same(w, prev, next) - same(w, prev, x) - same(w, x, next);
    const xLevel = w.grid.level(occ[i]!);
    const xCost = costOf(w, x);
    if (xCost > budget) continue;
    // Moves: every run of free slots not next to x (moving within its own hole changes nothing).
    for (let j = 0; j <= occ.length; j++) {
      if (j === i || j === i + 1) continue;
      const lo = j === 0 ? -1 : occ[j - 1]!;
      const hi = j === occ.length ? w.grid.size : occ[j]!;
      if (hi - lo < 2) continue;
      const gain = -(removeDelta + insertDelta(w, x, at(w, j - 1), at(w, j)));
      if (gain <= 0) continue;
      const run = bestInRun(w, lo, hi, xLevel);
      if (!run) continue;
      consider({ cost: xCost, gain, node: x, slot: run.slot, key: [xCost, -gain, 0, x, run.slot] });
    }
    // Swaps with any other node: only the edges around both positions change.
    for (let j = 0; j < occ.length; j++) {
      if (j === i) continue;
      const y = at(w, j);
      if (sameZone(w.zones[x], w.zones[y])) continue;
      const cost = xCost + costOf(w, y);
      if (cost > budget) continue;
      // The edges (e between positions e and e+1) touching i or j, each once.
      const edges = j === i + 1 ? [i - 1, i, j] : j === i - 1 ? [j - 1, j, i] : [i - 1, i, j - 1, j];
      const zoneAt = (k: number) => (k === i ? y : k === j ? x : at(w, k));
      let before = 0;
      let after = 0;
      for (const e of edges) {
        if (e < 0 || e + 1 >= occ.length) continue;
        before += same(w, at(w, e), at(w, e + 1));
        after += same(w, zoneAt(e), zoneAt(e + 1));
      }
      consider({ cost, gain: before - after, node: x, other: y, key: [cost, -(before - after), 1, x, y] });
    }
  }
  return best;
}

function repair(w: Work, budget: number): void {
  let left = budget;
  for (;;) {
    const action = bestRepair(w, left);
    if (!action) return;
    left -= action.cost;
    if (action.other !== undefined) {
      const a = w.slot[action.node]!;
      const b = w.slot[action.other]!;
      w.owner[a] = action.other;
      w.owner[b] = action.node;
      w.slot[action.node] = b;
      w.slot[action.other] = a;
    } else {
      vacate(w, action.node);
      occupy(w, action.node, action.slot!);
    }
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
    const slots = firstSlots(grid, n);
    order.forEach((item, i) => {
      values[item.index] = grid.value(slots[i]!);
    });
  } else {
    const w: Work = {
      grid,
      zones: nodes.map((node) => node.zone),
      owner: new Int32Array(size).fill(-1),
      slot: new Int32Array(n).fill(-1),
      keptSlot: new Int32Array(n).fill(-1),
      occupied: [],
    };
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
      firstSlots(grid, n).forEach((s, i) => {
        occupy(w, unplaced[i]!.index, s);
      });
    } else if (unplaced.length === size - w.occupied.length) {
      // The grid will be full (always so right after it halved): fill the free slots in delay order.
      fillInOrder(
        w,
        unplaced.map((item) => item.index),
      );
      repair(w, REPAIR_BUDGET_PER_EVENT * events);
    } else {
      for (const item of unplaced) place(w, item.index);
      repair(w, REPAIR_BUDGET_PER_EVENT * events);
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

/** The first n slots in van der Corput order, ascending: the most even spread a prefix can have. */
function firstSlots(grid: Grid, n: number): number[] {
  const slots: number[] = [];
  for (let s = 0; s < grid.size; s++) if (grid.rank(s) < n) slots.push(s);
  return slots;
}
