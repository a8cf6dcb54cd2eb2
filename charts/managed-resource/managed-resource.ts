/**
 * A ManagedResource and its immutable, checksum-named seed secrets (gardener v1.91.4
 * pkg/gardenlet/operation/botanist/operatingsystemconfig.go): each logical secret holds
 * registry-serialised objects under `<kind>__<namespace>__<name>.yaml` keys and is named
 * `managedresource-<logical>-<first 8 hex of its checksum>`.
 */
import {
  ANNOTATION,
  type KubeObject,
  LABEL,
  LABEL_VALUE,
  MANAGED_RESOURCE_API_VERSION,
  MANAGED_RESOURCE_KIND,
  type ManagedResource,
  NAME,
  secretChecksum,
  sha256Hex,
  stringifyYaml,
} from '../../api/index.js';

/** `<lowercase kind>__<namespace>__<name with ":" as "_">.yaml`, the registry's data key. */
export function registryKey(object: KubeObject): string {
  const kind = String(object.kind).toLowerCase();
  const namespace = object.metadata?.namespace ? String(object.metadata.namespace) : '';
  const name = String(object.metadata?.name ?? '').replaceAll(':', '_');
  return `${kind}__${namespace}__${name}.yaml`;
}

/** Registry serialisation: YAML with `creationTimestamp: null`, as Go's serializer writes it. */
export function registryData(objects: readonly KubeObject[]): Record<string, string> {
  const data: Record<string, string> = {};
  for (const o of objects) {
    const withTimestamp = { ...o, metadata: { creationTimestamp: null, ...o.metadata } };
    data[registryKey(o)] = stringifyYaml(withTimestamp);
  }
  return data;
}

export interface ManagedResourceSecret {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  type: 'Opaque';
  immutable: true;
  data: Record<string, string>;
}

export function managedResourceSecret(
  mrName: string,
  logicalName: string,
  namespace: string,
  data: Record<string, string>,
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
    data: Object.fromEntries(
      Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('base64')]),
    ),
  };
}

export function managedResource(
  name: string,
  namespace: string,
  secretNames: readonly string[],
): ManagedResource {
  return {
    apiVersion: MANAGED_RESOURCE_API_VERSION,
    kind: MANAGED_RESOURCE_KIND,
    metadata: {
      name,
      namespace,
      labels: { [LABEL.origin]: LABEL_VALUE.originGardener },
      annotations: Object.fromEntries(
        secretNames.map((s) => [`${ANNOTATION.referenceSecretPrefix}${sha256Hex(s).slice(0, 8)}`, s]),
      ),
    },
    spec: {
      secretRefs: secretNames.map((s) => ({ name: s })),
      injectLabels: { [LABEL.noCleanup]: 'true' },
      keepObjects: false,
    },
  };
}
