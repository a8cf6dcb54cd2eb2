/**
 * The object sets of direct mode, read from what was rendered for GRM: every ManagedResource in the
 * seed objects becomes a set of the same name, holding the objects its secrets carry (registry YAML
 * under `<kind>__<namespace>__<name>.yaml`) with the ManagedResource's `injectLabels` added, which is
 * exactly what GRM would write into the shoot. `renderNodeConfiguration(...).shoot` is the union of
 * these sets; this keeps which object belongs to which ManagedResource.
 */
import { parseYaml, TolerantManagedResource } from '../../api/index.js';
import type { SetObject } from './object-set.js';

interface SeedObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
}

interface SeedSecret extends SeedObject {
  readonly data?: Readonly<Record<string, string>>;
}

export function objectSetsFromManagedResources(seed: readonly SeedObject[]): Map<string, SetObject[]> {
  const sets = new Map<string, SetObject[]>();
  const secrets = new Map(
    seed
      .filter((o) => o.kind === 'Secret' && (o.apiVersion ?? 'v1') === 'v1')
      .map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o as SeedSecret] as const),
  );
  for (const candidate of seed) {
    if (candidate.kind !== 'ManagedResource') continue;
    const mr = TolerantManagedResource.parse(candidate);
    const name = mr.metadata.name ?? '';
    const objects: SetObject[] = [];
    for (const ref of mr.spec.secretRefs) {
      const secret = secrets.get(`${mr.metadata.namespace}/${ref.name}`);
      if (!secret)
        throw new Error(
          `ManagedResource ${mr.metadata.namespace}/${name}: secret ${ref.name} was not rendered`,
        );
      for (const [key, value] of Object.entries(secret.data ?? {})) {
        const object = parseYaml(Buffer.from(value, 'base64').toString('utf8')) as SetObject | null;
        if (!object || typeof object !== 'object' || !object.kind)
          throw new Error(`ManagedResource ${name}: secret ${ref.name} key ${key} holds no object`);
        const { creationTimestamp, ...metadata } = object.metadata as SetObject['metadata'] & {
          creationTimestamp?: unknown;
        };
        void creationTimestamp;
        objects.push({
          ...object,
          metadata: {
            ...metadata,
            ...(mr.spec.injectLabels || metadata.labels
              ? { labels: { ...metadata.labels, ...mr.spec.injectLabels } }
              : {}),
          },
        });
      }
    }
    sets.set(name, objects);
  }
  return sets;
}
