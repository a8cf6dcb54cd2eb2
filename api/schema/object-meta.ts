/** The ObjectMeta fields we write and read. */
import * as z from 'zod';
import { goOptional, objectOf, type Strictness } from './strictness.js';

const OwnerReference = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});

export function objectMetaSchema(mode: Strictness) {
  // Every ObjectMeta field is omitempty (or a nullable time): null reads as absent, as in Go.
  const opt = <S extends z.ZodType>(schema: S) => goOptional(mode, schema);
  return objectOf(mode, {
    name: opt(z.string()),
    generateName: opt(z.string()),
    namespace: opt(z.string()),
    uid: opt(z.string()),
    resourceVersion: opt(z.string()),
    generation: opt(z.number().int()),
    creationTimestamp: z.string().nullable().optional(),
    deletionTimestamp: z.string().nullable().optional(),
    labels: opt(z.record(z.string(), z.string())),
    annotations: opt(z.record(z.string(), z.string())),
    finalizers: opt(z.array(z.string())),
    ownerReferences: opt(z.array(OwnerReference)),
    managedFields: opt(z.array(z.unknown())),
  });
}

export type ObjectMeta = z.output<ReturnType<typeof objectMetaSchema>>;
