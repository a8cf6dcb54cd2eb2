/**
 * Compares what a component runs with what the agent rendered, field by field, for the fields the
 * rendered configuration holds. A rendered zero value (0, "", "0s", false of a non-pointer Go
 * field…) is what Go's decoder leaves for "unset": the component defaults it, so it is not
 * compared; neither are `apiVersion` and `kind`. Pure.
 */
import type { Mismatch } from './in-effect-check.js';

const IGNORED_TOP_LEVEL = new Set(['apiVersion', 'kind']);

function isZero(value: unknown): boolean {
  return (
    value === null || value === undefined || value === 0 || value === '' || value === '0' || value === '0s'
  );
}

/** JSON with the keys of every object sorted: a list's items compare whatever order a writer used. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const text = (value: unknown) => (value === undefined ? '(unset)' : canonical(value));

function sameList(rendered: readonly unknown[], running: unknown): boolean {
  const list = running === undefined || running === null ? [] : running;
  return canonical(rendered) === canonical(list);
}

export function renderedFieldsDiffer(rendered: unknown, running: unknown, path = ''): Mismatch[] {
  if (Array.isArray(rendered))
    return sameList(rendered, running)
      ? []
      : [{ field: path, rendered: text(rendered), running: text(running) }];
  if (rendered !== null && typeof rendered === 'object') {
    const from = running !== null && typeof running === 'object' ? (running as Record<string, unknown>) : {};
    return Object.entries(rendered as Record<string, unknown>).flatMap(([key, value]) =>
      path === '' && IGNORED_TOP_LEVEL.has(key)
        ? []
        : renderedFieldsDiffer(value, from[key], path ? `${path}.${key}` : key),
    );
  }
  if (isZero(rendered)) return [];
  return String(rendered) === String(running)
    ? []
    : [{ field: path, rendered: text(rendered), running: text(running) }];
}
