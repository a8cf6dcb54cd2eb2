/**
 * The agent's memory while it idles, which is nearly always (docs/benchmarks.md):
 * - its young generation stays at V8's initial size (two 1 MiB semi-spaces) instead of growing to
 *   2 × 16 MiB after the first burst of allocations (decoding an OSC, an apply) and staying there
 *   for hours. A single executable takes no V8 flags on its command line, and
 *   `--max-semi-space-size` is read only when the heap is set up, so this sets the growth factor,
 *   which V8 reads whenever the new space would grow;
 * - more objects then reach the old generation, where V8 collects only when it fills up: an idle
 *   agent would keep an apply's garbage for good. So once the heap has grown by IDLE_GC_GROWTH
 *   since the last collection, a full collection runs at the next IDLE_GC_INTERVAL_MS tick: a few
 *   milliseconds of CPU after an apply, nothing while nothing happens.
 * Imported first by the entry, before any other module allocates.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const YOUNG_GENERATION_FLAGS = ['--semi-space-growth-factor=1'] as const;
export const IDLE_GC_INTERVAL_MS = 30_000;
export const IDLE_GC_GROWTH = 4 * 1024 * 1024;

for (const flag of YOUNG_GENERATION_FLAGS) setFlagsFromString(flag);

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
