/**
 * The project's one YAML codec. Writing is Go-compatible and deterministic (see go-yaml-emitter.ts):
 * the same value always gives the same bytes, whatever the key order of the input. Reading accepts
 * what Go components write and what people type (YAML 1.1 scalars such as `0644`, JSON), keeps
 * timestamps as strings, and fails with the line and column of the first syntax error.
 */
import { type Document, isAlias, isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import { formatGoFloat } from './go-number.js';
import { emitGoYaml, type YamlValue } from './go-yaml-emitter.js';
import { resolvePlainScalar } from './go-yaml-resolve.js';

export type { YamlValue } from './go-yaml-emitter.js';

export class YamlSyntaxError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
    this.name = 'YamlSyntaxError';
  }
}

/** Defines a key as data even when it is `__proto__`, which plain assignment would turn into a prototype. */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Turns any JSON-serialisable value into the plain tree the emitter accepts, with JSON's rules:
 * undefined object fields vanish, undefined array items become null, toJSON() is honoured.
 */
export function toYamlValue(value: unknown, path = '$'): YamlValue {
  if (value === null) return null;
  if (value !== undefined && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return toYamlValue((value as { toJSON(): unknown }).toJSON(), path);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value))
        throw new TypeError(`${path}: ${value} cannot be written as JSON-compatible YAML`);
      return value;
    case 'object': {
      if (Array.isArray(value))
        return value.map((item, i) => (item === undefined ? null : toYamlValue(item, `${path}[${i}]`)));
      const out: { [key: string]: YamlValue } = {};
      for (const [key, item] of Object.entries(value as object)) {
        if (item !== undefined) setOwn(out, key, toYamlValue(item, `${path}.${key}`));
      }
      return out;
    }
    default:
      throw new TypeError(`${path}: a ${typeof value} cannot be written as YAML`);
  }
}

/** One document, byte-identical to what sigs.k8s.io/yaml.Marshal writes for the same JSON. */
export function stringifyYaml(value: unknown): string {
  return emitGoYaml(toYamlValue(value));
}

/** Several documents separated by `---`, as `kubectl` and cdk8s write multi-object files. */
export function stringifyYamlDocuments(values: readonly unknown[]): string {
  return values.map((v) => stringifyYaml(v)).join('---\n');
}

/**
 * Builds the value of a parsed document with Go's scalar resolution: every plain scalar goes
 * through go-yaml's `resolve` (so `0644` is 420, `._` a string, `2024-01-01` a string), quoted
 * scalars stay strings, and keys become strings as sigs.k8s.io/yaml turns them into JSON keys.
 */
const MAX_ALIAS_EXPANSIONS = 1000;

function keyText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : formatGoFloat(value);
  return String(value);
}

function nodeValue(node: unknown, doc: Document.Parsed, budget: { aliases: number }): unknown {
  if (isAlias(node)) {
    if (++budget.aliases > MAX_ALIAS_EXPANSIONS) throw new YamlSyntaxError('too many alias expansions');
    return nodeValue(node.resolve(doc), doc, budget);
  }
  if (isScalar(node)) {
    const source = node.source ?? node.value;
    if (node.type === 'PLAIN' && typeof source === 'string') return resolvePlainScalar(source);
    return String(node.value ?? '');
  }
  if (isSeq(node)) return node.items.map((item) => nodeValue(item, doc, budget));
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      const key = keyText(nodeValue(pair.key, doc, budget));
      if (Object.hasOwn(out, key)) throw new YamlSyntaxError(`duplicate key ${JSON.stringify(key)}`);
      setOwn(out, key, nodeValue(pair.value, doc, budget));
    }
    return out;
  }
  if (node === null || node === undefined) return null;
  throw new YamlSyntaxError('unsupported YAML node');
}

/**
 * The source line an error points at (or, at the end of the input, the last line before it),
 * control characters escaped and cut to a readable length: what the yaml library's code frame
 * shows, on one line.
 */
function nearText(text: string, line: number): string {
  const lines = text.split('\n');
  let i = Math.min(line, lines.length) - 1;
  while (i > 0 && (lines[i] ?? '').trim() === '') i--;
  const source = lines[i] ?? '';
  const shown = JSON.stringify(source.length > 60 ? `${source.slice(0, 60)}…` : source);
  return i === line - 1 ? `near ${shown}` : `after line ${i + 1}: ${shown}`;
}

function documentValue(doc: Document.Parsed, text: string): unknown {
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    // the library's message is `reason at line L, column C:` followed by a multi-line code frame
    const reason = (error.message.split('\n')[0] ?? error.message).replace(/ at line \d+, column \d+:?$/, '');
    const where = pos ? ` at line ${pos.line}, column ${pos.col} (${nearText(text, pos.line)})` : '';
    throw new YamlSyntaxError(`${reason}${where}`, pos?.line, pos?.col);
  }
  return nodeValue(doc.contents, doc, { aliases: 0 });
}

function parseDocuments(text: string): Document.Parsed[] {
  return parseAllDocuments(text, {
    schema: 'failsafe',
    uniqueKeys: false,
    keepSourceTokens: false,
  }) as Document.Parsed[];
}

/** Every non-empty document of a (possibly multi-document) YAML or JSON text. */
export function parseYamlDocuments(text: string): unknown[] {
  return parseDocuments(text)
    .map((doc) => documentValue(doc, text))
    .filter((v) => v !== null && v !== undefined);
}

/** Exactly one document; an empty text is null. */
export function parseYaml(text: string): unknown {
  const docs = parseDocuments(text);
  if (docs.length > 1) throw new YamlSyntaxError(`expected one YAML document, found ${docs.length}`);
  const doc = docs[0];
  return doc ? (documentValue(doc, text) ?? null) : null;
}
