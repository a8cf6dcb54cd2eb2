/** The part of a Seed (core.gardener.cloud/v1beta1) node configuration reads: its ingress domain (valitail). */
import * as z from 'zod';
import { objectMetaSchema } from './object-meta.js';
import { objectOf, type Strictness } from './strictness.js';

export function seedSchema(mode: Strictness) {
  const o = <S extends z.ZodRawShape>(shape: S) => objectOf(mode, shape);
  return o({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema(mode),
    spec: o({ ingress: o({ domain: z.string() }).optional() }),
  });
}

export const TolerantSeed = seedSchema('tolerant');
export type Seed = z.output<typeof TolerantSeed>;
