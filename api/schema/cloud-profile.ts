/** The part of a CloudProfile (core.gardener.cloud/v1beta1) node configuration reads. */
import * as z from 'zod';
import { QuantityText } from './kubelet-config.js';
import { objectMetaSchema } from './object-meta.js';
import { objectOf, type Strictness } from './strictness.js';

export function cloudProfileSchema(mode: Strictness) {
  const o = <S extends z.ZodRawShape>(shape: S) => objectOf(mode, shape);
  return o({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema(mode),
    spec: o({
      caBundle: z.string().optional(),
      machineTypes: z
        .array(
          o({
            name: z.string(),
            cpu: QuantityText.optional(),
            memory: QuantityText,
            architecture: z.string().optional(),
          }),
        )
        .default([]),
    }),
  });
}

export const TolerantCloudProfile = cloudProfileSchema('tolerant');
export type CloudProfile = z.output<typeof TolerantCloudProfile>;
