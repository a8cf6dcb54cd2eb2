/**
 * Which contracts the renderer can write in full. The v1.150.0 contract is selectable everywhere
 * (flag, values of the library, controller-manager configuration, Cluster annotation), but until
 * every object of it is rendered and proven against upstream's own code it is refused as a whole:
 * a partial v1.150 render would be bytes that neither gardenlet v1.91.4 nor v1.150.0 writes.
 */
import type { GardenerVersion } from '../api/index.js';

export const RENDERABLE_GARDENER_VERSIONS: readonly GardenerVersion[] = ['v1.91.4'];

export class ContractNotRenderedError extends Error {
  readonly gardenerVersion: GardenerVersion;

  constructor(gardenerVersion: GardenerVersion) {
    super(
      `the Gardener ${gardenerVersion} contract is not rendered yet: its OSCs, NodeAgentConfiguration, OSC secrets and ManagedResource are not all implemented, and a partial render would be bytes no gardenlet writes (docs/compatibility.md); render with gardenerVersion ${RENDERABLE_GARDENER_VERSIONS.join(' or ')}`,
    );
    this.name = 'ContractNotRenderedError';
    this.gardenerVersion = gardenerVersion;
  }
}

export function assertRenderable(gardenerVersion: GardenerVersion): void {
  if (!RENDERABLE_GARDENER_VERSIONS.includes(gardenerVersion))
    throw new ContractNotRenderedError(gardenerVersion);
}
