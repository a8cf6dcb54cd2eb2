/**
 * The bytes go-toml v1.9.5 writes for a `map[string]any` (`toml.NewEncoder(w).Encode(m)`, the
 * encoder gardener v1.150.0 pkg/nodeagent/controller/operatingsystemconfig/containerd_config.go
 * rewrites containerd's config.toml with; go-toml v1.9.5 marshal.go and tomltree_write.go):
 *
 * - per table, plain keys first, then sub-tables, each group sorted bytewise;
 * - a sub-table is a blank line and a header with its full dotted name, indented two spaces per
 *   level, its entries two more; empty tables still get their header;
 * - keys outside `A-Za-z0-9_-` are quoted, unless they already start and end with `"`;
 * - a decoded array of tables as `[[name]]` sections (toml-value.ts `tableArray`);
 * - other arrays on one line, `[a, b]`; tables inside them inline, `{ k = v, t = { … } }`;
 * - nil values are left out.
 */
import { formatGoTomlFloat } from './go-toml-float.js';
import { isTableArray, isTomlTable, type TomlTable, type TomlValue } from './toml-value.js';

const BARE_KEY = /^[A-Za-z0-9_-]*$/;

/** `encodeTomlString`: note `< 0x1F` on the low 16 bits of the rune, as Go writes it. */
export function encodeGoTomlString(value: string): string {
  let out = '';
  for (const char of value) {
    switch (char) {
      case '\b':
        out += '\\b';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\r':
        out += '\\r';
        break;
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      default: {
        const low = char.codePointAt(0)! & 0xffff;
        out += low < 0x1f ? `\\u${low.toString(16).toUpperCase().padStart(4, '0')}` : char;
      }
    }
  }
  return out;
}

export function quoteGoTomlKey(key: string): string {
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) return key;
  return BARE_KEY.test(key) ? key : `"${encodeGoTomlString(key)}"`;
}

/** Go's `sort.Strings`: by UTF-8 bytes. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function present(table: TomlTable): { simple: string[]; tables: string[] } {
  const simple: string[] = [];
  const tables: string[] = [];
  for (const [key, value] of Object.entries(table)) {
    if (value === null || value === undefined) continue;
    (isTomlTable(value) || isTableArray(value) ? tables : simple).push(key);
  }
  return { simple: simple.sort(byteOrder), tables: tables.sort(byteOrder) };
}

function inlineTable(table: TomlTable): string {
  const { simple, tables } = present(table);
  const entries = [...simple, ...tables].map((key) => `${quoteGoTomlKey(key)} = ${valueText(table[key])}`);
  return `{ ${entries.join(', ')} }`;
}

function valueText(value: TomlValue): string {
  if (typeof value === 'string') return `"${encodeGoTomlString(value)}"`;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return formatGoTomlFloat(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) {
    return `[${value
      .map((item) => {
        if (item === null || item === undefined) throw new Error('go-toml cannot encode nil in an array');
        return valueText(item);
      })
      .join(', ')}]`;
  }
  if (isTomlTable(value)) return inlineTable(value);
  return '';
}

function writeTable(table: TomlTable, indent: string, keyspace: string): string {
  const { simple, tables } = present(table);
  let out = '';
  for (const key of simple) out += `${indent}${quoteGoTomlKey(key)} = ${valueText(table[key])}\n`;
  for (const key of tables) {
    const name = keyspace ? `${keyspace}.${quoteGoTomlKey(key)}` : quoteGoTomlKey(key);
    const value = table[key];
    if (isTableArray(value)) {
      for (const entry of value) out += `\n${indent}[[${name}]]\n${writeTable(entry, `${indent}  `, name)}`;
    } else {
      out += `\n${indent}[${name}]\n${writeTable(value as TomlTable, `${indent}  `, name)}`;
    }
  }
  return out;
}

export function encodeGoToml(table: TomlTable): string {
  return writeTable(table, '', '');
}
