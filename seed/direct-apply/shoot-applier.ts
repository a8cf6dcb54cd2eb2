/** Direct apply mode's ShootApplier: every rendered ManagedResource becomes an object set in the shoot. */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../../runtime/logging.js';
import { applyObjectSets, deleteObjectSet, type ObjectSetApi } from './apply.js';
import { objectSetsFromManagedResources } from './managed-resource-sets.js';

/**
 * Direct mode: puts each rendered ManagedResource's objects into the shoot as a named set (pruning
 * what a set no longer holds), or removes a whole set again.
 */
export interface ShootApplier {
  applySets(shoot: ObjectSetApi, seedObjects: readonly KubernetesObject[], log: Logger): Promise<unknown>;
  remove(shoot: ObjectSetApi, set: string, log: Logger): Promise<unknown>;
}

export function directShootApplier(): ShootApplier {
  return {
    applySets: async (shoot, seedObjects: readonly KubernetesObject[], log) => {
      const summaries = await applyObjectSets(shoot, objectSetsFromManagedResources(seedObjects as never), {
        log,
      });
      for (const [set, s] of summaries)
        if (s.pruned.length + s.released.length > 0)
          log.info({ set, pruned: s.pruned, released: s.released }, 'Pruned shoot objects');
      return summaries;
    },
    remove: (shoot, set, log) => deleteObjectSet(shoot, set, { log }),
  };
}
