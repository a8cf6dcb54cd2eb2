/**
 * Reads TOML into the value go-toml v1.9.5 gives Go code decoding into `map[string]any`
 * (toml-value.ts): containerd's `config default` output (v1 and v2 configs, go-toml v1 and v2
 * quoting) and what people write. Integers are int64 (`bigint`, out of range is an error), floats
 * numbers, arrays of tables arrays of records. Dates and times are refused: no containerd setting
 * has one, and go-toml would hand Go a time.Time this codec does not model.
 */
import { isTomlTable, setTomlKey, type TomlTable, type TomlValue, tableArray } from './toml-value.js';

export class TomlSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`toml: line ${line}: ${message}`);
    this.name = 'TomlSyntaxError';
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const BARE = /[A-Za-z0-9_-]/;

class Reader {
  private pos = 0;
  /** Tables defined by a header (a second header of the same name is an error). */
  private readonly defined = new Set<TomlTable>();
  /** Tables closed for dotted extension: inline tables. */
  private readonly sealed = new Set<TomlTable>();

  constructor(private readonly text: string) {}

  private line(): number {
    let n = 1;
    for (let i = 0; i < this.pos && i < this.text.length; i++) if (this.text[i] === '\n') n++;
    return n;
  }

  private fail(message: string): never {
    throw new TomlSyntaxError(message, this.line());
  }

  private peek(offset = 0): string {
    return this.text[this.pos + offset] ?? '';
  }

  private startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos);
  }

  private skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  private skipComment(): void {
    if (this.peek() !== '#') return;
    while (this.pos < this.text.length && this.peek() !== '\n') this.pos++;
  }

  /** Spaces, comments and newlines (inside arrays, between statements). */
  private skipBlank(): void {
    for (;;) {
      this.skipSpaces();
      this.skipComment();
      if (this.peek() === '\n') this.pos++;
      else if (this.startsWith('\r\n')) this.pos += 2;
      else return;
    }
  }

  private endOfLine(): void {
    this.skipSpaces();
    this.skipComment();
    if (this.pos >= this.text.length) return;
    if (this.peek() === '\n') this.pos++;
    else if (this.startsWith('\r\n')) this.pos += 2;
    else this.fail(`unexpected ${JSON.stringify(this.peek())} after a value`);
  }

  read(): TomlTable {
    const root: TomlTable = {};
    let current = root;
    for (;;) {
      this.skipBlank();
      if (this.pos >= this.text.length) return root;
      if (this.startsWith('[[')) {
        this.pos += 2;
        const path = this.key();
        this.skipSpaces();
        if (!this.startsWith(']]')) this.fail('expected ]]');
        this.pos += 2;
        current = this.appendArrayTable(root, path);
        this.endOfLine();
      } else if (this.peek() === '[') {
        this.pos++;
        const path = this.key();
        this.skipSpaces();
        if (this.peek() !== ']') this.fail('expected ]');
        this.pos++;
        current = this.defineTable(root, path);
        this.endOfLine();
      } else {
        this.keyValue(current);
        this.endOfLine();
      }
    }
  }

  private descend(table: TomlTable, key: string): TomlTable {
    const existing = table[key];
    if (existing === undefined) {
      const child: TomlTable = {};
      setTomlKey(table, key, child);
      return child;
    }
    if (Array.isArray(existing)) {
      const last = existing[existing.length - 1];
      if (isTomlTable(last)) return last;
    }
    if (isTomlTable(existing) && !this.sealed.has(existing)) return existing;
    return this.fail(`key ${JSON.stringify(key)} is already a value`);
  }

  private defineTable(root: TomlTable, path: string[]): TomlTable {
    let table = root;
    for (const key of path) table = this.descend(table, key);
    if (this.defined.has(table)) this.fail(`table [${path.join('.')}] defined twice`);
    this.defined.add(table);
    return table;
  }

  private appendArrayTable(root: TomlTable, path: string[]): TomlTable {
    let table = root;
    for (const key of path.slice(0, -1)) table = this.descend(table, key);
    const last = path[path.length - 1]!;
    const existing = table[last];
    const entry: TomlTable = {};
    if (existing === undefined) setTomlKey(table, last, tableArray([entry]));
    else if (Array.isArray(existing) && existing.every(isTomlTable)) existing.push(entry);
    else this.fail(`key ${JSON.stringify(last)} is not an array of tables`);
    return entry;
  }

  private keyValue(table: TomlTable): void {
    const path = this.key();
    this.skipSpaces();
    if (this.peek() !== '=') this.fail('expected = after a key');
    this.pos++;
    this.skipSpaces();
    const value = this.value();
    // go-toml decodes a key's non-empty array of tables as []map[string]any
    if (Array.isArray(value) && value.length > 0 && value.every(isTomlTable))
      tableArray(value as TomlTable[]);
    let target = table;
    for (const key of path.slice(0, -1)) target = this.descend(target, key);
    const last = path[path.length - 1]!;
    if (Object.hasOwn(target, last)) this.fail(`key ${JSON.stringify(last)} defined twice`);
    setTomlKey(target, last, value);
  }

  /** A dotted key. */
  private key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.skipSpaces();
      const c = this.peek();
      if (c === '"') parts.push(this.basicString());
      else if (c === "'") parts.push(this.literalString());
      else {
        const start = this.pos;
        while (BARE.test(this.peek())) this.pos++;
        if (this.pos === start) this.fail(`expected a key, found ${JSON.stringify(c)}`);
        parts.push(this.text.slice(start, this.pos));
      }
      this.skipSpaces();
      if (this.peek() !== '.') return parts;
      this.pos++;
    }
  }

  private value(): TomlValue {
    const c = this.peek();
    if (this.startsWith('"""')) return this.multilineBasicString();
    if (this.startsWith("'''")) return this.multilineLiteralString();
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    if (this.startsWith('true') && !BARE.test(this.peek(4))) {
      this.pos += 4;
      return true;
    }
    if (this.startsWith('false') && !BARE.test(this.peek(5))) {
      this.pos += 5;
      return false;
    }
    return this.number();
  }

  private number(): bigint | number {
    const start = this.pos;
    while (/[0-9A-Za-z_+\-.:]/.test(this.peek())) this.pos++;
    const token = this.text.slice(start, this.pos);
    if (token === '') this.fail(`expected a value, found ${JSON.stringify(this.peek())}`);
    if (/^\d{4}-\d{2}-\d{2}|^\d{2}:\d{2}/.test(token))
      this.fail(`dates and times are not supported: ${token}`);
    const special = /^([+-]?)(inf|nan)$/.exec(token);
    if (special) {
      if (special[2] === 'nan') return Number.NaN;
      return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    }
    const radix = /^0([xob])([0-9A-Fa-f_]+)$/.exec(token);
    if (radix) {
      const digits = radix[2]!;
      const valid = { x: /^[0-9A-Fa-f]+(_[0-9A-Fa-f]+)*$/, o: /^[0-7]+(_[0-7]+)*$/, b: /^[01]+(_[01]+)*$/ }[
        radix[1] as 'x' | 'o' | 'b'
      ];
      if (!valid.test(digits)) this.fail(`invalid integer ${token}`);
      return this.int64(BigInt(`0${radix[1]}${digits.replaceAll('_', '')}`), token);
    }
    const DEC = '(?:0|[1-9](?:_?\\d)*)';
    if (new RegExp(`^[+-]?${DEC}$`).test(token)) return this.int64(BigInt(token.replaceAll('_', '')), token);
    if (new RegExp(`^[+-]?${DEC}(?:\\.\\d(?:_?\\d)*)?(?:[eE][+-]?\\d(?:_?\\d)*)?$`).test(token))
      return Number(token.replaceAll('_', ''));
    return this.fail(`invalid value ${JSON.stringify(token)}`);
  }

  private int64(value: bigint, token: string): bigint {
    if (value < INT64_MIN || value > INT64_MAX) this.fail(`integer ${token} is out of the range of int64`);
    return value;
  }

  private array(): TomlValue[] {
    this.pos++;
    const items: TomlValue[] = [];
    for (;;) {
      this.skipBlank();
      if (this.peek() === ']') {
        this.pos++;
        return items;
      }
      items.push(this.value());
      this.skipBlank();
      if (this.peek() === ',') this.pos++;
      else if (this.peek() !== ']') this.fail('expected , or ] in an array');
    }
  }

  private inlineTable(): TomlTable {
    this.pos++;
    const table: TomlTable = {};
    this.skipSpaces();
    if (this.peek() === '}') {
      this.pos++;
      this.sealed.add(table);
      return table;
    }
    for (;;) {
      this.keyValue(table);
      this.skipSpaces();
      if (this.peek() === '}') {
        this.pos++;
        this.sealed.add(table);
        return table;
      }
      if (this.peek() !== ',') this.fail('expected , or } in an inline table');
      this.pos++;
    }
  }

  private escape(): string {
    const c = this.peek();
    this.pos++;
    const simple: Record<string, string> = {
      b: '\b',
      t: '\t',
      n: '\n',
      f: '\f',
      r: '\r',
      '"': '"',
      '\\': '\\',
    };
    if (simple[c] !== undefined) return simple[c];
    if (c === 'u' || c === 'U') {
      const length = c === 'u' ? 4 : 8;
      const hex = this.text.slice(this.pos, this.pos + length);
      if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== length) this.fail(`invalid escape \\${c}${hex}`);
      this.pos += length;
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) this.fail(`invalid code point \\${c}${hex}`);
      return String.fromCodePoint(code);
    }
    return this.fail(`invalid escape \\${c}`);
  }

  private basicString(): string {
    this.pos++;
    let out = '';
    for (;;) {
      const c = this.peek();
      if (c === '' || c === '\n') this.fail('unterminated string');
      this.pos++;
      if (c === '"') return out;
      out += c === '\\' ? this.escape() : c;
    }
  }

  private literalString(): string {
    this.pos++;
    const end = this.text.indexOf("'", this.pos);
    const newline = this.text.indexOf('\n', this.pos);
    if (end < 0 || (newline >= 0 && newline < end)) this.fail('unterminated literal string');
    const out = this.text.slice(this.pos, end);
    this.pos = end + 1;
    return out;
  }

  private skipFirstNewline(): void {
    if (this.peek() === '\n') this.pos++;
    else if (this.startsWith('\r\n')) this.pos += 2;
  }

  private multilineBasicString(): string {
    this.pos += 3;
    this.skipFirstNewline();
    let out = '';
    for (;;) {
      if (this.pos >= this.text.length) this.fail('unterminated multi-line string');
      if (this.startsWith('"""')) {
        // up to two quotes may close the content itself
        let quotes = 3;
        while (this.peek(quotes) === '"' && quotes < 5) quotes++;
        out += '"'.repeat(quotes - 3);
        this.pos += quotes;
        return out;
      }
      const c = this.peek();
      this.pos++;
      if (c !== '\\') {
        out += c;
        continue;
      }
      // a line-ending backslash trims the newline and the whitespace after it
      const rest = /^[ \t]*\r?\n/.exec(this.text.slice(this.pos));
      if (rest) {
        this.pos += rest[0].length;
        while (/[ \t\r\n]/.test(this.peek())) this.pos++;
      } else {
        out += this.escape();
      }
    }
  }

  private multilineLiteralString(): string {
    this.pos += 3;
    this.skipFirstNewline();
    const end = this.text.indexOf("'''", this.pos);
    if (end < 0) this.fail('unterminated multi-line literal string');
    let close = end;
    while (this.text[close + 3] === "'" && close < end + 2) close++;
    const out = this.text.slice(this.pos, close);
    this.pos = close + 3;
    return out;
  }
}

export function decodeToml(text: string): TomlTable {
  return new Reader(text).read();
}
