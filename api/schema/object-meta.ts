/** The ObjectMeta fields we write and read. */
import * as z from 'zod';
import { objectOf, type Strictness } from './strictness.js';

const OwnerReference = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});

export function objectMetaSchema(mode: Strictness) {
  return objectOf(mode, {
    name: z.string().optional(),
    generateName: z.string().optional(),
    namespace: z.string().optional(),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    generation: z.number().int().optional(),
    creationTimestamp: z.string().nullable().optional(),
    deletionTimestamp: z.string().nullable().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
    finalizers: z.array(z.string()).optional(),
    ownerReferences: z.array(OwnerReference).optional(),
    managedFields: z.array(z.unknown()).optional(),
  });
}

export type ObjectMeta = z.output<ReturnType<typeof objectMetaSchema>>;
