/**
 * Go's `json.Unmarshal(raw, &m)` into an existing `map[string]any`, as gardener v1.150.0's agent
 * merges a plugin's `values` into config.toml: each key of the JSON object replaces that key whole
 * (nested tables included), other keys stay; every JSON number becomes a float64 (so `3` is
 * written `3.0`), `null` a nil the encoder leaves out.
 */
import { setTomlKey, type TomlTable, type TomlValue } from '../../api/toml/toml-value.js';

function fromJson(value: unknown): TomlValue {
  if (value === null) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(fromJson);
  if (typeof value === 'object') {
    const table: TomlTable = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) setTomlKey(table, k, fromJson(v));
    return table;
  }
  throw new Error(`not a JSON value: ${String(value)}`);
}

export function mergeJsonInto(table: TomlTable, values: unknown): TomlTable {
  if (values === null) return table;
  if (typeof values !== 'object' || Array.isArray(values))
    throw new Error('json: cannot unmarshal a non-object into the plugin table');
  for (const [key, value] of Object.entries(values as Record<string, unknown>))
    setTomlKey(table, key, fromJson(value));
  return table;
}
