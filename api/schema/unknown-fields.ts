/**
 * Typos in an input: a field Gardener (or, for our own files, our schema) does not know, such as
 * `maxPod` or `spec.porvider`, is dropped by a tolerant decoder like any unknown field, so a
 * change silently does nothing. This finds them at every depth, with the closest known name
 * (`did you mean "maxPods"?`), for a warning or, in strict mode, an error, as
 * `kubectl --validate=strict` does. Reading stays tolerant: this only reports.
 */
import type * as z from 'zod';
import type { GardenerVersion } from '../gardener-version.js';
import { type FieldError, fieldErrorsFromZod, formatFieldPath } from '../validation/field-error.js';
import { clusterFieldTree, type FieldTree, subtreeAt } from './field-tree.js';

export interface UnknownField {
  /** `spec.shoot.spec.provider.workers[0].kubernetes.kubelet.maxPod` */
  readonly field: string;
  readonly suggestion?: string;
}

const isMapping = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Optimal string alignment distance, case differences counting half (`maxpods` is maxPods). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const x = a[i - 1]!;
      const y = b[j - 1]!;
      const cost = x === y ? 0 : x.toLowerCase() === y.toLowerCase() ? 0.5 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x === b[j - 2] && a[i - 2] === y) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest known name within a third of its length (at least 1, at most 3 edits). */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  return best && best.distance <= limit ? best.name : undefined;
}

function walk(value: unknown, tree: FieldTree, path: (string | number)[], out: UnknownField[]): void {
  if (tree === 'leaf' || tree === 'raw') return;
  if ('items' in tree) {
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        walk(item, tree.items, [...path, i], out);
      });
    }
    return;
  }
  if (!isMapping(value)) return; // a type error, which the decoder reports
  if ('values' in tree) {
    for (const [key, child] of Object.entries(value)) walk(child, tree.values, [...path, key], out);
    return;
  }
  const known = Object.keys(tree.fields);
  for (const [key, child] of Object.entries(value)) {
    const field = tree.fields[key];
    if (field === undefined) {
      const suggestion = closestName(key, known);
      out.push({ field: formatFieldPath([...path, key]), ...(suggestion ? { suggestion } : {}) });
    } else walk(child, field, [...path, key], out);
  }
}

/** The fields of `value` that `tree` does not know, at every depth, paths below `prefix`. */
export function unknownFields(
  value: unknown,
  tree: FieldTree,
  prefix: readonly (string | number)[] = [],
): UnknownField[] {
  const out: UnknownField[] = [];
  walk(value, tree, [...prefix], out);
  return out;
}

/**
 * Unknown fields of a raw Cluster, its embedded Shoot, CloudProfile and Seed included, by the Go
 * types of the contract's Gardener.
 */
export function unknownClusterFields(cluster: unknown, version: GardenerVersion = 'v1.91.4'): UnknownField[] {
  return unknownFields(cluster, clusterFieldTree(version));
}

export function unknownFieldMessage(u: UnknownField): string {
  return `${u.field}: unknown field${u.suggestion ? `, did you mean "${u.suggestion}"?` : ''}`;
}

/** The error of an unknown field in strict mode, in the form of every other field error. */
export function unknownFieldError(u: UnknownField): FieldError {
  return {
    type: 'Forbidden',
    field: u.field,
    detail: `unknown field${u.suggestion ? `, did you mean "${u.suggestion}"?` : ''}`,
  };
}

/**
 * A strict schema's errors, each unknown field named by its own path with the closest known name
 * (`caBundles.clustr: Forbidden: unknown field, did you mean "cluster"?`) rather than as zod's
 * list of unrecognized keys at the parent.
 */
export function inputErrorsFromZod(
  error: z.ZodError,
  tree: FieldTree,
  prefix: readonly (string | number)[] = [],
): FieldError[] {
  return error.issues.flatMap((issue) => {
    if (issue.code !== 'unrecognized_keys')
      return fieldErrorsFromZod({ issues: [issue] } as z.ZodError, prefix);
    const parent = subtreeAt(tree, issue.path);
    const known =
      parent && typeof parent === 'object' && 'fields' in parent ? Object.keys(parent.fields) : [];
    return issue.keys.map((key) => {
      const suggestion = closestName(key, known);
      const path = [...prefix, ...(issue.path as (string | number)[]), key];
      return unknownFieldError({ field: formatFieldPath(path), ...(suggestion ? { suggestion } : {}) });
    });
  });
}
