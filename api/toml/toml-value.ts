/**
 * A TOML document as go-toml v1 (github.com/pelletier/go-toml v1.9.5) hands it to Go code that
 * decodes into `map[string]any`: integers stay integers (int64, here `bigint`), floats are numbers,
 * tables are records, arrays (of tables, too) are arrays. `null` and `undefined` are Go's nil: the
 * encoder leaves such a key out, which is how a subtree is removed.
 */
export type TomlValue = string | bigint | number | boolean | TomlValue[] | TomlTable | null | undefined;

export interface TomlTable {
  [key: string]: TomlValue;
}

const TABLE_ARRAY = Symbol('go-toml table array');

/**
 * An array go-toml decodes as `[]map[string]any` (a key's non-empty array of tables, `[[x]]` or
 * `x = [{…}]`): its encoder writes it back as `[[x]]` sections, while an array of tables that
 * came from elsewhere (JSON plugin values, `[]any`) is written inline.
 */
export function tableArray(items: TomlTable[]): TomlTable[] {
  Object.defineProperty(items, TABLE_ARRAY, { value: true, enumerable: false });
  return items;
}

export function isTableArray(value: TomlValue): value is TomlTable[] {
  return Array.isArray(value) && (value as unknown as Record<symbol, unknown>)[TABLE_ARRAY] === true;
}

export function isTomlTable(value: TomlValue): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Defines a key as data even when it is `__proto__`. */
export function setTomlKey(table: TomlTable, key: string, value: TomlValue): void {
  Object.defineProperty(table, key, { value, enumerable: true, writable: true, configurable: true });
}
