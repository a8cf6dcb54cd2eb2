/** ManagedResource (resources.gardener.cloud/v1alpha1): the objects gardener-resource-manager applies into a shoot. */
import * as z from 'zod';
import { objectMetaSchema } from './object-meta.js';
import { objectOf, rawObject, type Strictness } from './strictness.js';

export const MANAGED_RESOURCE_API_VERSION = 'resources.gardener.cloud/v1alpha1';
export const MANAGED_RESOURCE_KIND = 'ManagedResource';

export function managedResourceSchema(mode: Strictness) {
  const o = <S extends z.ZodRawShape>(shape: S) => objectOf(mode, shape);
  return o({
    apiVersion: z.literal(MANAGED_RESOURCE_API_VERSION),
    kind: z.literal(MANAGED_RESOURCE_KIND),
    metadata: objectMetaSchema(mode),
    spec: o({
      class: z.string().optional(),
      secretRefs: z.array(o({ name: z.string() })),
      injectLabels: z.record(z.string(), z.string()).optional(),
      forceOverwriteLabels: z.boolean().optional(),
      forceOverwriteAnnotations: z.boolean().optional(),
      keepObjects: z.boolean().optional(),
      deletePersistentVolumeClaims: z.boolean().optional(),
    }),
    status: o({
      observedGeneration: z.number().int().optional(),
      conditions: z.array(rawObject()).optional(),
      resources: z.array(rawObject()).optional(),
      secretsDataChecksum: z.string().optional(),
    }).optional(),
  });
}

export const StrictManagedResource = managedResourceSchema('strict');
export const TolerantManagedResource = managedResourceSchema('tolerant');
export type ManagedResource = z.output<typeof StrictManagedResource>;
