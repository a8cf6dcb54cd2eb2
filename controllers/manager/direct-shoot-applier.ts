/** Direct apply mode's ShootApplier: every rendered ManagedResource becomes an object set in the shoot. */
import type { KubernetesObject } from '@kubernetes/client-node';
import { applyObjectSets, deleteObjectSet, objectSetsFromManagedResources } from '../direct-apply/index.js';
import type { ShootApplier } from '../operatingsystemconfig/reconciler.js';

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
