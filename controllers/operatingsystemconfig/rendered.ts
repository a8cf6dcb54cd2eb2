/** The kinds of what `renderNodeConfiguration` puts into the seed, told apart by kind and name. */
import type { V1Secret } from '@kubernetes/client-node';
import {
  MANAGED_RESOURCE_KIND,
  type ManagedResource,
  NAME,
  type OperatingSystemConfig,
  OSC_KIND,
} from '../../api/index.js';
import type { RenderedObject } from '../../charts/node-configuration.js';

export interface SeedObjects {
  /** The shoot-access secrets (their tokens are filled by a token-requestor). */
  readonly accessSecrets: (RenderedObject & V1Secret)[];
  /** The OSC pair per worker pool. */
  readonly oscs: (RenderedObject & OperatingSystemConfig)[];
  readonly managedResources: (RenderedObject & ManagedResource)[];
  /** The checksum-named secrets the ManagedResources reference. */
  readonly managedResourceSecrets: (RenderedObject & V1Secret)[];
}

const isOsc = (o: RenderedObject): o is RenderedObject & OperatingSystemConfig => o.kind === OSC_KIND;
const isManagedResource = (o: RenderedObject): o is RenderedObject & ManagedResource =>
  o.kind === MANAGED_RESOURCE_KIND;
const isSecretNamed =
  (prefix: string) =>
  (o: RenderedObject): o is RenderedObject & V1Secret =>
    o.kind === 'Secret' && (o.metadata.name ?? '').startsWith(prefix);

export function seedObjects(rendered: readonly RenderedObject[]): SeedObjects {
  return {
    accessSecrets: rendered.filter(isSecretNamed(NAME.shootAccessPrefix)),
    oscs: rendered.filter(isOsc),
    managedResources: rendered.filter(isManagedResource),
    managedResourceSecrets: rendered.filter(isSecretNamed(NAME.managedResourceSecretPrefix)),
  };
}
