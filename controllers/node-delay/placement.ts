/**
 * Nodes on the slots of one grid, and the three ways the assignment changes who sits where:
 * placing a node without a slot in a hole of the target (the first n slots in van der Corput
 * order), re-spreading nodes that sit outside the target into its holes, and swapping nodes to
 * undo same-zone neighbours. The last two are bounded by a budget of changed annotations.
 */
import type { Grid } from './grid.js';

export interface Work {
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
  /** 1 for the slots of the target: the first n slots in van der Corput order. */
  readonly target: Uint8Array;
}

export function newWork(grid: Grid, zones: readonly (string | undefined)[]): Work {
  const target = new Uint8Array(grid.size);
  for (const s of grid.firstSlots(zones.length)) target[s] = 1;
  return {
    grid,
    zones,
    owner: new Int32Array(grid.size).fill(-1),
    slot: new Int32Array(zones.length).fill(-1),
    keptSlot: new Int32Array(zones.length).fill(-1),
    occupied: [],
    target,
  };
}

const sameZone = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && a !== '' && a === b;

export function lessKey(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
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

export function occupy(w: Work, node: number, slot: number): void {
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

/** Change in same-zone neighbours when `node` is put between the nodes `left` and `right`. */
function insertDelta(w: Work, node: number, left: number, right: number): number {
  return same(w, left, node) + same(w, node, right) - same(w, left, right);
}

/** 1 if changing `node` now adds a changed annotation (it still holds its previous delay). */
function costOf(w: Work, node: number): number {
  return w.slot[node] === w.keptSlot[node] ? 1 : 0;
}

/**
 * The free slot `h` seen from `node`, as if `node` were not placed: its neighbours and the
 * distance to the nearest occupied slot (the grid size at the ends).
 */
function around(w: Work, h: number, node: number): { left: number; right: number; distance: number } {
  const occ = w.occupied;
  const i = lowerBound(occ, h);
  let l = i - 1;
  let r = i;
  if (at(w, l) === node && node >= 0) l--;
  if (at(w, r) === node && node >= 0) r++;
  const left = l >= 0 ? h - occ[l]! : w.grid.size;
  const right = r < occ.length ? occ[r]! - h : w.grid.size;
  return { left: at(w, l), right: at(w, r), distance: Math.min(left, right) };
}

function holes(w: Work): number[] {
  const out: number[] = [];
  for (let s = 0; s < w.grid.size; s++) if (w.target[s] && w.owner[s] === -1) out.push(s);
  return out;
}

/**
 * Places `node` (unplaced) in a hole of the target: zones first (no new same-zone pair, then the
 * smallest change in pairs), then the widest hole, then van der Corput rank. A hole always
 * exists: the target has n slots and fewer than n are occupied while a node waits.
 */
export function placeInHole(w: Work, node: number): void {
  let best: { slot: number; key: number[] } | undefined;
  for (const h of holes(w)) {
    const { left, right, distance } = around(w, h, -1);
    const delta = insertDelta(w, node, left, right);
    const key = [delta > 0 ? 1 : 0, delta, -distance, w.grid.rank(h)];
    if (!best || lessKey(key, best.key)) best = { slot: h, key };
  }
  if (!best) throw new Error('no hole in the target for an unplaced node');
  occupy(w, node, best.slot);
}

/**
 * Moves nodes that sit outside the target into its holes, each move the one that adds the fewest
 * same-zone pairs (then the widest hole), while the budget lasts. Returns what is left of it.
 * With every node in the target the delays are the most even set the grid has.
 */
export function respread(w: Work, budget: number): number {
  let left = budget;
  for (;;) {
    const outside = w.occupied.map((s) => w.owner[s]!).filter((x) => !w.target[w.slot[x]!]);
    const free = holes(w);
    if (outside.length === 0 || free.length === 0) return left;
    let best: { node: number; slot: number; cost: number; key: number[] } | undefined;
    for (const x of outside) {
      const cost = costOf(w, x);
      if (cost > left) continue;
      const p = lowerBound(w.occupied, w.slot[x]!);
      const prev = at(w, p - 1);
      const next = at(w, p + 1);
      const removeDelta = same(w, prev, next) - same(w, prev, x) - same(w, x, next);
      for (const h of free) {
        const { left: a, right: b, distance } = around(w, h, x);
        const key = [cost, removeDelta + insertDelta(w, x, a, b), -distance, w.grid.rank(h), x];
        if (!best || lessKey(key, best.key)) best = { node: x, slot: h, cost, key };
      }
    }
    if (!best) return left;
    left -= best.cost;
    vacate(w, best.node);
    occupy(w, best.node, best.slot);
  }
}

/**
 * Fills every free slot, lowest first, each with the node whose zone differs from the slot's
 * neighbours (the node just before, the node just after if already there), taking from the zone
 * with the most nodes left (ties: least recently used, then the first in `nodes`' order).
 */
export function fillInOrder(w: Work, nodes: readonly number[]): void {
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

interface Swap {
  readonly cost: number;
  readonly node: number;
  readonly other: number;
  readonly key: readonly number[];
}

/** The best strictly improving swap of a node in a same-zone pair with any node, within `budget`. */
function bestSwap(w: Work, budget: number): Swap | undefined {
  const occ = w.occupied;
  const candidates = new Set<number>();
  for (let i = 0; i + 1 < occ.length; i++) {
    if (same(w, at(w, i), at(w, i + 1))) {
      candidates.add(i);
      candidates.add(i + 1);
    }
  }
  let best: Swap | undefined;
  for (const i of [...candidates].sort((a, b) => a - b)) {
    const x = at(w, i);
    const xCost = costOf(w, x);
    if (xCost > budget) continue;
    for (let j = 0; j < occ.length; j++) {
      if (j === i) continue;
      const y = at(w, j);
      if (sameZone(w.zones[x], w.zones[y])) continue;
      const cost = xCost + costOf(w, y);
      if (cost > budget) continue;
      // The edges (e between positions e and e+1) touching i or j, each once.
      const edges = j === i + 1 ? [i - 1, i, j] : j === i - 1 ? [j - 1, j, i] : [i - 1, i, j - 1, j];
      const nodeAt = (k: number) => (k === i ? y : k === j ? x : at(w, k));
      let gain = 0;
      for (const e of edges) {
        if (e < 0 || e + 1 >= occ.length) continue;
        gain += same(w, at(w, e), at(w, e + 1)) - same(w, nodeAt(e), nodeAt(e + 1));
      }
      if (gain <= 0) continue;
      const key = [cost, -gain, x, y];
      if (!best || lessKey(key, best.key)) best = { cost, node: x, other: y, key };
    }
  }
  return best;
}

/**
 * Swaps nodes to undo same-zone neighbours, each swap strictly improving, while the budget lasts.
 * Swaps keep the set of occupied slots, so the spread stays what the re-spread made it.
 */
export function repairZones(w: Work, budget: number): void {
  let left = budget;
  for (;;) {
    const swap = bestSwap(w, left);
    if (!swap) return;
    left -= swap.cost;
    const a = w.slot[swap.node]!;
    const b = w.slot[swap.other]!;
    w.owner[a] = swap.other;
    w.owner[b] = swap.node;
    w.slot[swap.node] = b;
    w.slot[swap.other] = a;
  }
}
