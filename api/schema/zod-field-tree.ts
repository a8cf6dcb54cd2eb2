/**
 * The field tree of one of our own zod schemas (the render values, the controller-manager
 * configuration), so their unknown fields are named with the closest known name as Gardener's are.
 */
import type * as z from 'zod';
import type { FieldTree } from './field-tree.js';

interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly catchall?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly element?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly left?: z.ZodType;
  readonly right?: z.ZodType;
  readonly getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

function merge(a: FieldTree, b: FieldTree): FieldTree {
  if (typeof a === 'object' && typeof b === 'object' && 'fields' in a && 'fields' in b)
    return { fields: { ...a.fields, ...b.fields } };
  return a === 'leaf' ? b : a;
}

export function zodFieldTree(schema: z.ZodType): FieldTree {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type) && def.innerType) return zodFieldTree(def.innerType);
  switch (def.type) {
    case 'object': {
      // an object that keeps unknown members (looseObject, catchall) has no typos
      if (def.catchall && defOf(def.catchall).type !== 'never') return 'raw';
      const fields: Record<string, FieldTree> = {};
      for (const [key, value] of Object.entries(def.shape ?? {})) fields[key] = zodFieldTree(value);
      return { fields };
    }
    case 'pipe': {
      const out = zodFieldTree(def.out!);
      return out === 'leaf' ? zodFieldTree(def.in!) : out;
    }
    case 'array':
      return { items: zodFieldTree(def.element!) };
    case 'record': {
      const value = zodFieldTree(def.valueType!);
      return value === 'leaf' || value === 'raw' ? 'raw' : { values: value };
    }
    case 'union':
      return (def.options ?? []).map(zodFieldTree).reduce(merge, 'leaf' as FieldTree);
    case 'intersection':
      return merge(zodFieldTree(def.left!), zodFieldTree(def.right!));
    case 'lazy':
      return zodFieldTree(def.getter!());
    case 'unknown':
    case 'any':
      return 'raw';
    default:
      return 'leaf';
  }
}
