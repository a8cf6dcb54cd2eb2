/**
 * The agent's memory while it idles, which is nearly always (docs/benchmarks.md). A single
 * executable takes no V8 flags on its command line, so the entry imports this module first, before
 * any other module allocates, and it sets the few flags V8 reads while running:
 * - `--semi-space-growth-factor=1`: the young generation stays at V8's initial size (two 1 MiB
 *   semi-spaces) instead of growing to 2 × 16 MiB after the first burst of allocations (decoding
 *   an OSC, an apply) and staying there for hours (`--max-semi-space-size` is read only when the
 *   heap is set up; the growth factor whenever the new space would grow);
 * - `--no-turbofan`: no optimizing compiler. An agent runs the same code a few times an hour; the
 *   interpreter does that at no measurable CPU cost per apply, and the optimizer's code, compile
 *   zones and its own pages of the node binary cost ~10 MiB;
 * - `--no-sparkplug`: no baseline code either, so V8 allocates no pages of executable memory
 *   after the start and keeps less code in the heap: 1.0–1.2 MiB less anonymous memory idle and
 *   up to 3.5 MiB less after a burst of applies, for 0–25 ms more CPU an apply
 *   (docs/benchmarks.md, node agent section);
 * - `--compact-on-every-full-gc`: a full collection also moves the survivors together, so the
 *   pages an apply filled with garbage are given back instead of staying committed, part-used
 *   (after a burst of garbage: 10.2 MiB of heap committed for 7.6 MiB in use instead of 13.7,
 *   3.6 MiB less anonymous memory; docs/benchmarks.md, node agent section). With the idle
 *   collection below after 1 MiB instead of 4, an idle agent spends 2.4 CPU s an hour more;
 * - more objects then reach the old generation, which V8 collects only when it fills up: an idle
 *   agent would keep an apply's garbage for good. So once the heap has grown by IDLE_GC_GROWTH
 *   since the last collection, a full collection runs at the next IDLE_GC_INTERVAL_MS tick: a few
 *   milliseconds of CPU after an apply, and one whenever the small garbage of Lease renewals and
 *   watch bookmarks has added up to IDLE_GC_GROWTH.
 * Only flags V8 reads at the moment it uses them belong here: GC threading flags changed at run
 * time crash V8.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const AGENT_V8_FLAGS = [
  '--semi-space-growth-factor=1',
  '--no-turbofan',
  '--compact-on-every-full-gc',
  '--no-sparkplug',
] as const;
export const IDLE_GC_INTERVAL_MS = 30_000;
export const IDLE_GC_GROWTH = 1024 * 1024;

for (const flag of AGENT_V8_FLAGS) setFlagsFromString(flag);

/** V8's collector as `gc()`: exposed to a new context only, so the agent's own globals stay as they are. */
function exposedGc(): () => void {
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** Collects once the heap grew by `growth` bytes since the last collection; returns whether it did. */
export function collectIfGrown(
  state: { lastUsed: number },
  used: () => number,
  collect: () => void,
  growth = IDLE_GC_GROWTH,
): boolean {
  if (used() - state.lastUsed < growth) return false;
  collect();
  state.lastUsed = used();
  return true;
}

const collect = exposedGc();
const state = { lastUsed: getHeapStatistics().used_heap_size };
setInterval(
  () => collectIfGrown(state, () => getHeapStatistics().used_heap_size, collect),
  IDLE_GC_INTERVAL_MS,
).unref();
