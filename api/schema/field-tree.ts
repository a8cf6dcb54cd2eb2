/**
 * The shape of the fields an input may have, for the unknown-field check: a value (`leaf`), an
 * embedded object whose fields are someone else's (`raw`, e.g. a providerConfig), an object with
 * known fields, a list or a map of one of these. Gardener's objects come from its Go types
 * (`gardener-fields.ts`, generated), so a field Gardener knows is never called a typo even when our
 * schemas do not model it.
 */
import type { GardenerVersion } from '../gardener-version.js';
import { GARDENER_FIELD_TYPES } from './gardener-fields.js';
import { GARDENER_FIELD_TYPES_V150 } from './gardener-fields-v150.js';

/** Each contract's Go types: a Shoot of v1.150.0 has fields v1.91.4 never had (`updateStrategy`). */
const FIELD_TYPES: Record<GardenerVersion, Readonly<Record<string, Readonly<Record<string, string>>>>> = {
  'v1.91.4': GARDENER_FIELD_TYPES,
  'v1.150.0': GARDENER_FIELD_TYPES_V150,
};

export type FieldTree =
  | 'leaf'
  | 'raw'
  | { readonly fields: Readonly<Record<string, FieldTree>> }
  | { readonly items: FieldTree }
  | { readonly values: FieldTree };

const memo = new Map<string, FieldTree>();

function treeOfRef(ref: string, version: GardenerVersion): FieldTree {
  if (ref === 'leaf' || ref === 'raw') return ref;
  if (ref.startsWith('[]')) return { items: treeOfRef(ref.slice(2), version) };
  const map = /^map\[(.*)\]$/.exec(ref);
  if (map) return { values: treeOfRef(map[1]!, version) };
  return gardenerType(ref, version);
}

/**
 * A Go type of the contract's Gardener (`gardener-fields.ts`, `gardener-fields-v150.ts`; `Shoot`,
 * `metav1.ObjectMeta`) as a tree, built lazily.
 */
export function gardenerType(name: string, version: GardenerVersion = 'v1.91.4'): FieldTree {
  const id = `${version} ${name}`;
  const known = memo.get(id);
  if (known) return known;
  const goFields = FIELD_TYPES[version][name];
  if (!goFields) throw new Error(`no Gardener ${version} type ${name}`);
  const fields: Record<string, FieldTree> = {};
  const tree = { fields };
  memo.set(id, tree);
  for (const [field, ref] of Object.entries(goFields)) {
    Object.defineProperty(fields, field, { enumerable: true, get: () => treeOfRef(ref, version) });
  }
  return tree;
}

/**
 * extensions.gardener.cloud/v1alpha1 Cluster (Gardener v1.91.4 `pkg/apis/extensions/v1alpha1/
 * types_cluster.go`, unchanged in v1.150.0): its spec embeds the Shoot, CloudProfile and Seed as
 * the contract's gardenlet writes them.
 */
export function clusterFieldTree(version: GardenerVersion = 'v1.91.4'): FieldTree {
  return {
    fields: {
      apiVersion: 'leaf',
      kind: 'leaf',
      metadata: gardenerType('metav1.ObjectMeta', version),
      spec: {
        fields: {
          cloudProfile: gardenerType('CloudProfile', version),
          seed: gardenerType('Seed', version),
          shoot: gardenerType('Shoot', version),
        },
      },
    },
  };
}

/** The subtree at `path` (list indexes and map keys included), or undefined past a leaf. */
export function subtreeAt(tree: FieldTree, path: readonly PropertyKey[]): FieldTree | undefined {
  let node: FieldTree | undefined = tree;
  for (const segment of path) {
    if (node === undefined || node === 'leaf' || node === 'raw') return node;
    if ('items' in node) node = node.items;
    else if ('values' in node) node = node.values;
    else node = node.fields[String(segment)];
  }
  return node;
}
