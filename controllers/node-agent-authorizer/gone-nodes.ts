/**
 * The names of a shoot's Nodes that were deleted while this process watched, with when. An
 * identity whose Node existed and is gone reads nothing (decide.ts), even within the bootstrap
 * window of its first approval: without this, a machine whose Node is deleted a few minutes after
 * it registered would read every pool's OSC secret until that window ends (docs/security.md).
 * A Node that comes back (the kubelet registers it again) is forgotten. Remembered for a day,
 * far beyond any bootstrap window (at most 1h); after a restart of the process, world.ts falls
 * back on the approvals that imply a registered Node.
 */

import type { NodeObject } from '../../api/index.js';
import type { Informer } from '../../runtime/kube/informer.js';

const MEMORY_MS = 24 * 3_600_000;

export interface GoneNodes {
  has(name: string): boolean;
  /** Stops watching (the shoot stopped). */
  stop(): void;
}

export function watchGoneNodes(nodes: Informer<NodeObject>, now: () => number = Date.now): GoneNodes {
  const gone = new Map<string, number>();
  const stop = nodes.subscribe({
    add: (node) => gone.delete(node.metadata?.name ?? ''),
    delete: (node) => {
      const at = now();
      for (const [name, when] of gone) if (at - when > MEMORY_MS) gone.delete(name);
      if (node.metadata?.name) gone.set(node.metadata.name, at);
    },
  });
  return { has: (name) => gone.has(name), stop };
}
