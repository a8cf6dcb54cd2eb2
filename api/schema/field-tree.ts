/**
 * The shape of the fields an input may have, for the unknown-field check: a value (`leaf`), an
 * embedded object whose fields are someone else's (`raw`, e.g. a providerConfig), an object with
 * known fields, a list or a map of one of these. Gardener's objects come from its Go types
 * (`gardener-fields.ts`, generated), so a field Gardener knows is never called a typo even when our
 * schemas do not model it.
 */
import { GARDENER_FIELD_TYPES } from './gardener-fields.js';

export type FieldTree =
  | 'leaf'
  | 'raw'
  | { readonly fields: Readonly<Record<string, FieldTree>> }
  | { readonly items: FieldTree }
  | { readonly values: FieldTree };

const memo = new Map<string, FieldTree>();

function treeOfRef(ref: string): FieldTree {
  if (ref === 'leaf' || ref === 'raw') return ref;
  if (ref.startsWith('[]')) return { items: treeOfRef(ref.slice(2)) };
  const map = /^map\[(.*)\]$/.exec(ref);
  if (map) return { values: treeOfRef(map[1]!) };
  return gardenerType(ref);
}

/** A Go type of `gardener-fields.ts` (`Shoot`, `metav1.ObjectMeta`) as a tree, built lazily. */
export function gardenerType(name: string): FieldTree {
  const known = memo.get(name);
  if (known) return known;
  const goFields = GARDENER_FIELD_TYPES[name];
  if (!goFields) throw new Error(`no Gardener type ${name}`);
  const fields: Record<string, FieldTree> = {};
  const tree = { fields };
  memo.set(name, tree);
  for (const [field, ref] of Object.entries(goFields)) {
    Object.defineProperty(fields, field, { enumerable: true, get: () => treeOfRef(ref) });
  }
  return tree;
}

/**
 * extensions.gardener.cloud/v1alpha1 Cluster (Gardener v1.91.4 `pkg/apis/extensions/v1alpha1/
 * types_cluster.go`): its spec embeds the Shoot, CloudProfile and Seed as gardenlet writes them.
 */
export function clusterFieldTree(): FieldTree {
  return {
    fields: {
      apiVersion: 'leaf',
      kind: 'leaf',
      metadata: gardenerType('metav1.ObjectMeta'),
      spec: {
        fields: {
          cloudProfile: gardenerType('CloudProfile'),
          seed: gardenerType('Seed'),
          shoot: gardenerType('Shoot'),
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
