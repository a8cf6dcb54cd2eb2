/**
 * A process's memory as the kernel reports it in /proc/<pid>/status (proc(5)): resident set size
 * and how it splits into anonymous memory, file-backed pages and shared memory. On the real node
 * both agents' executables lie on the node's tmpfs overlay, so their mapped code counts as
 * RssShmem, not RssFile; RssAnon (heap, stacks) is the part that says what a program keeps.
 */

export interface ProcMemory {
  /** VmRSS: resident set size, kB. */
  readonly rssKb: number;
  /** RssAnon: resident anonymous memory, kB. */
  readonly anonKb: number;
  /** RssFile: resident file mappings, kB. */
  readonly fileKb: number;
  /** RssShmem: resident shared memory (tmpfs-backed mappings included), kB. */
  readonly shmemKb: number;
  /** VmHWM: the peak resident set size so far, kB. */
  readonly peakKb: number;
}

const FIELDS = {
  rssKb: 'VmRSS',
  anonKb: 'RssAnon',
  fileKb: 'RssFile',
  shmemKb: 'RssShmem',
  peakKb: 'VmHWM',
} as const satisfies Record<keyof ProcMemory, string>;

/** The memory fields of a /proc/<pid>/status text; throws naming a field it lacks (a zombie has none). */
export function parseProcStatus(text: string): ProcMemory {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+):\s+(\d+) kB$/.exec(line.trim());
    if (m) values.set(m[1]!, Number(m[2]));
  }
  const memory: Partial<Record<keyof ProcMemory, number>> = {};
  for (const [key, field] of Object.entries(FIELDS) as [keyof ProcMemory, string][]) {
    const v = values.get(field);
    if (v === undefined) throw new Error(`/proc/<pid>/status has no ${field} line`);
    memory[key] = v;
  }
  return memory as ProcMemory;
}

export interface MemorySummary {
  readonly samples: number;
  /** Medians over the samples. */
  readonly median: ProcMemory;
  /** The smallest and largest VmRSS sampled, kB. */
  readonly rssRangeKb: readonly [number, number];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

/** Field-wise medians of samples of one process (at least one). */
export function summarizeMemory(samples: readonly ProcMemory[]): MemorySummary {
  if (samples.length === 0) throw new Error('no memory samples to summarize');
  const of = (k: keyof ProcMemory) => median(samples.map((s) => s[k]));
  const rss = samples.map((s) => s.rssKb);
  return {
    samples: samples.length,
    median: {
      rssKb: of('rssKb'),
      anonKb: of('anonKb'),
      fileKb: of('fileKb'),
      shmemKb: of('shmemKb'),
      peakKb: of('peakKb'),
    },
    rssRangeKb: [Math.min(...rss), Math.max(...rss)],
  };
}
