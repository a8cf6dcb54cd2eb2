/**
 * The images the controller-manager's manifests and chart deploy, as an image vector in the shape
 * of Gardener's charts/images.yaml (github.com/gardener/gardener, pkg/utils/imagevector: `images:`
 * entries of name, repository, tag). The package ships it as charts/images.yaml (kept equal to
 * IMAGE_VECTOR by a test); a landscape that mirrors images passes its own vector of the same shape
 * (`manifests --image-vector FILE`, as gardenlet reads IMAGEVECTOR_OVERWRITE): its entries replace
 * the shipped ones by name.
 */
import * as z from 'zod';
import { VERSION } from '../../api/version.js';

export const CONTROLLER_MANAGER_IMAGE_NAME = 'gardener-osc';

const ImageSourceSchema = z.strictObject({
  name: z.string().min(1),
  sourceRepository: z.string().min(1).optional(),
  repository: z.string().min(1),
  tag: z.string().min(1).optional(),
});

export const ImageVectorSchema = z.strictObject({ images: z.array(ImageSourceSchema) });
export type ImageVector = z.output<typeof ImageVectorSchema>;

export const IMAGE_VECTOR: ImageVector = {
  images: [
    {
      name: CONTROLLER_MANAGER_IMAGE_NAME,
      repository: 'europe-docker.pkg.dev/gardener-project/releases/gardener-osc',
      tag: `v${VERSION}`,
    },
  ],
};

/** The vector with `override`'s entries in place of those of the same name. */
export function overrideImageVector(base: ImageVector, override: ImageVector): ImageVector {
  const byName = new Map(override.images.map((i) => [i.name, i]));
  return { images: base.images.map((i) => byName.get(i.name) ?? i) };
}

/** `repository:tag` (or the repository alone when it carries a digest or no tag is given). */
export function imageReference(vector: ImageVector, name: string): string {
  const image = vector.images.find((i) => i.name === name);
  if (!image) throw new Error(`the image vector has no image named ${name}`);
  return image.tag
    ? `${image.repository}${image.tag.startsWith('sha256:') ? '@' : ':'}${image.tag}`
    : image.repository;
}
