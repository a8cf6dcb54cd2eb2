/**
 * The slot grid of the per-node delays: C = 2^k slots, slot s at `min + ⌊s·window/C⌋` (exact in
 * integers), and the van der Corput order of its slots (bit reversal: 0, C/2, C/4, 3C/4, ...),
 * whose every prefix is the most even set of that many slots there is.
 */

/** The smallest power of two ≥ n (1 for n ≤ 1). */
export function gridSize(n: number): number {
  let size = 1;
  while (size < n) size *= 2;
  return size;
}

export class Grid {
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

  /** The first n slots in van der Corput order, ascending: the even spread every node set aims at. */
  firstSlots(n: number): number[] {
    const slots: number[] = [];
    for (let s = 0; s < this.size; s++) if (this.rank(s) < n) slots.push(s);
    return slots;
  }
}
