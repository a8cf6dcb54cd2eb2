/**
 * Cluster (extensions.gardener.cloud/v1alpha1): how extensions see a shoot. Its spec embeds the
 * Shoot, CloudProfile and Seed as raw objects (preserved unknown fields, as upstream's CRD), which
 * `decodeCluster` then reads through the tolerant subsets.
 */
import * as z from 'zod';
import { type FieldError, fieldErrorsFromZod } from '../validation/field-error.js';
import { type CloudProfile, TolerantCloudProfile } from './cloud-profile.js';
import { objectMetaSchema } from './object-meta.js';
import { type Seed, TolerantSeed } from './seed.js';
import { type Shoot, TolerantShoot } from './shoot.js';
import { objectOf, rawObject, type Strictness } from './strictness.js';

export const CLUSTER_API_VERSION = 'extensions.gardener.cloud/v1alpha1';
export const CLUSTER_KIND = 'Cluster';

export function clusterSchema(mode: Strictness) {
  const o = <S extends z.ZodRawShape>(shape: S) => objectOf(mode, shape);
  return o({
    apiVersion: z.literal(CLUSTER_API_VERSION),
    kind: z.literal(CLUSTER_KIND),
    metadata: objectMetaSchema(mode),
    spec: o({
      cloudProfile: rawObject('the CloudProfile of the shoot'),
      seed: rawObject('the Seed hosting the shoot control plane'),
      shoot: rawObject('the Shoot'),
    }),
  });
}

export const StrictCluster = clusterSchema('strict');
export const TolerantCluster = clusterSchema('tolerant');

/** A Cluster with its embedded objects decoded. */
export interface Cluster {
  readonly name: string;
  readonly shoot: Shoot;
  readonly cloudProfile: CloudProfile;
  readonly seed: Seed;
}

export type ClusterDecodeResult = { ok: true; value: Cluster } | { ok: false; errors: FieldError[] };

export function decodeCluster(input: unknown): ClusterDecodeResult {
  const cluster = TolerantCluster.safeParse(input, { reportInput: true });
  if (!cluster.success) return { ok: false, errors: fieldErrorsFromZod(cluster.error) };
  const { spec } = cluster.data;
  // reportInput: a wrong value is named in the error (`maxPods: "120": expected number, got string`)
  const shoot = TolerantShoot.Shoot.safeParse(spec.shoot, { reportInput: true });
  const cloudProfile = TolerantCloudProfile.safeParse(spec.cloudProfile, { reportInput: true });
  const seed = TolerantSeed.safeParse(spec.seed, { reportInput: true });
  const errors = [
    ...(shoot.success ? [] : fieldErrorsFromZod(shoot.error, ['spec', 'shoot'])),
    ...(cloudProfile.success ? [] : fieldErrorsFromZod(cloudProfile.error, ['spec', 'cloudProfile'])),
    ...(seed.success ? [] : fieldErrorsFromZod(seed.error, ['spec', 'seed'])),
  ];
  if (!shoot.success || !cloudProfile.success || !seed.success) return { ok: false, errors };
  return {
    ok: true,
    value: {
      name: cluster.data.metadata.name ?? '',
      shoot: shoot.data,
      cloudProfile: cloudProfile.data,
      seed: seed.data,
    },
  };
}
