/**
 * The images of the v1.150.0 contract: gardener v1.150.0 imagevector/containers.yaml, where an
 * entry without a tag (the node agent) takes gardenlet's own gitVersion. The node agent's tag is
 * more than a version here: the agent finds its config file by it (`config-v1.150.0.yaml`,
 * gardener v1.150.0 pkg/api/config/nodeagent/v1alpha1/helper).
 */
import type { RenderValues } from './render-values.js';

export const GARDENLET_GIT_VERSION_V150 = 'v1.150.0';

export const DEFAULT_IMAGES_V150 = {
  nodeAgent: `europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:${GARDENLET_GIT_VERSION_V150}`,
  hyperkubeRepository: 'europe-docker.pkg.dev/gardener-project/releases/hyperkube',
  pauseContainer: 'registry.k8s.io/pause:3.10',
  openTelemetryCollector:
    'europe-docker.pkg.dev/gardener-project/releases/gardener/observability/opentelemetry-collector:v0.0.1',
  valitail: 'europe-docker.pkg.dev/gardener-project/releases/3rd/credativ/valitail:v2.2.15',
} as const;

export type ImagesV150 = { readonly [K in keyof typeof DEFAULT_IMAGES_V150]: string };

/** The v1.150.0 image vector with the images the values name in its place. */
export function imagesV150(values: Pick<RenderValues, 'images'>): ImagesV150 {
  return { ...DEFAULT_IMAGES_V150, ...values.images };
}
