/**
 * Typos in the parts of a Shoot that node configuration reads: a field Gardener does not know
 * (`maxPod`) is dropped by the decoder like any unknown field, so a change silently does nothing.
 * This finds them, with the closest known name (`did you mean "maxPods"?`), for a warning or, in
 * strict mode, an error. Reading stays tolerant: this only reports.
 */
import { formatFieldPath } from '../validation/field-error.js';
import { CHECKED_SHOOT_PARTS, type FieldNode } from './shoot-field-names.js';

export interface UnknownField {
  /** `spec.provider.workers[0].kubernetes.kubelet.maxPod` */
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

function walk(value: unknown, node: FieldNode, path: (string | number)[], out: UnknownField[]): void {
  if (node.list) {
    if (!Array.isArray(value)) return;
    value.forEach((item, i) => {
      walk(item, { fields: node.fields }, [...path, i], out);
    });
    return;
  }
  if (!isMapping(value)) return; // a type error, which the decoder reports
  const known = Object.keys(node.fields);
  for (const [key, child] of Object.entries(value)) {
    const spec = node.fields[key];
    if (spec === undefined) {
      const suggestion = closestName(key, known);
      out.push({ field: formatFieldPath([...path, key]), ...(suggestion ? { suggestion } : {}) });
    } else if (spec !== 'leaf' && spec !== 'raw') walk(child, spec, [...path, key], out);
  }
}

/** Unknown fields of a raw Shoot (as found in a Cluster), paths relative to `prefix`. */
export function unknownShootFields(shoot: unknown, prefix: readonly string[] = []): UnknownField[] {
  const out: UnknownField[] = [];
  for (const part of CHECKED_SHOOT_PARTS) {
    let value: unknown = shoot;
    for (const key of part.path) value = isMapping(value) ? value[key] : undefined;
    if (value !== undefined) walk(value, part.node, [...prefix, ...part.path], out);
  }
  return out;
}

export function unknownFieldMessage(u: UnknownField): string {
  return `${u.field}: unknown field${u.suggestion ? `, did you mean "${u.suggestion}"?` : ''}`;
}
