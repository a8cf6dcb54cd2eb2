/**
 * Kubernetes semantic deep-equality (apimachinery `equality.Semantic.DeepEqual`) as the planner needs
 * it: a missing field, `null`, an empty array and an empty map are the same thing (Go decodes all of
 * them to nil or empty), arrays compare in order, everything else by value.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isAbsent(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isPlainObject(value) && Object.keys(value).length === 0;
}

export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isAbsent(a) && isAbsent(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => semanticEqual(item, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) if (!semanticEqual(a[key], b[key])) return false;
    return true;
  }
  return false;
}
