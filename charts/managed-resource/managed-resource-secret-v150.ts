/**
 * A ManagedResource secret of the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/utils/managedresources/registry.go and builder): the compressed registry data under
 * `data.yaml.br`, named after its logical name and the first 8 hex digits of its data's checksum,
 * immutable and garbage-collectable, as in v1.91.4 (managed-resource.ts) but with binary data.
 */
import { LABEL, NAME, secretChecksum } from '../../api/index.js';
import type { ManagedResourceSecret } from './managed-resource.js';

export function managedResourceSecretV150(
  mrName: string,
  logicalName: string,
  namespace: string,
  data: Readonly<Record<string, Buffer>>,
): ManagedResourceSecret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `${NAME.managedResourceSecretPrefix}${logicalName}-${secretChecksum(data).slice(0, 8)}`,
      namespace,
      labels: { [LABEL.managedResource]: mrName, [LABEL.garbageCollectableReference]: 'true' },
    },
    type: 'Opaque',
    immutable: true,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.toString('base64')])),
  };
}
