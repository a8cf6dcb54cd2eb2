/**
 * A YAML emitter that writes JSON-shaped values byte for byte as sigs.k8s.io/yaml does (JSON ->
 * go-yaml v2): keys sorted the go-yaml way, block style, unindented sequences, empty collections
 * as `{}`/`[]`, go-yaml's choice between plain, single-quoted, double-quoted and literal scalars,
 * and go-yaml's folding of long scalars at column 80. Gardener derives names and checksums from
 * these bytes (OSC secret checksums, ManagedResource secret names), so "looks the same" is not
 * enough. The structure follows go-yaml's emitter (emitterc.go): the same primitives (write
 * indent, write indicator) with the same flags, so layout decisions come out identical.
 */

import { formatGoNumber } from './go-number.js';
import { compareGoYamlKeys } from './go-yaml-key-order.js';
import { isBase60Float, resolvesToNonString } from './go-yaml-resolve.js';

export type YamlValue = null | boolean | number | string | YamlValue[] | { [key: string]: YamlValue };

const BEST_INDENT = 2;
const BEST_WIDTH = 80;
const MAX_SIMPLE_KEY_BYTES = 128;

type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

interface ScalarAnalysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

const isSpace = (c: string | undefined): boolean => c === ' ';
const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';
const isBreak = (c: string | undefined): boolean =>
  c === '\r' || c === '\n' || c === '\u0085' || c === '\u2028' || c === '\u2029';

/** go-yaml's is_printable, on code points (it rejects tab, CR, DEL, NEL, BOM and every astral char). */
function isPrintable(c: string): boolean {
  const cp = c.codePointAt(0)!;
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

const FIRST_CHAR_INDICATORS = new Set([
  '#',
  ',',
  '[',
  ']',
  '{',
  '}',
  '&',
  '*',
  '!',
  '|',
  '>',
  "'",
  '"',
  '%',
  '@',
  '`',
]);

const BREAK = '\r\n\u0085\u2028\u2029';
const ANY_BREAK = new RegExp(`[${BREAK}]`);
const SPACE_THEN_BREAK = new RegExp(` [${BREAK}]`);
const BREAK_THEN_SPACE = new RegExp(`[${BREAK}] `);
const HASH_AFTER_BLANK = new RegExp(`[ \\t\\0${BREAK}]#`);
const COLON_BEFORE_BLANK = /:(?:[ \t]|$)/;
// Printable as go-yaml's is_printable decides: LF, ASCII graphics, BMP except surrogates and BOM.
const SPECIAL = /[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd]|\ufeff/u;

/**
 * go-yaml's yaml_emitter_analyze_scalar, reduced to the block-context facts we use. The per-
 * character loop of the original is expressed with regular expressions: the same conditions,
 * much faster on long values (base64 file contents).
 */
function analyzeScalar(s: string): ScalarAnalysis {
  if (s.length === 0) {
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  const first = s[0]!;
  const second = s[1];
  const last = s.at(-1)!;
  const blockIndicators =
    s.startsWith('---') ||
    s.startsWith('...') ||
    FIRST_CHAR_INDICATORS.has(first) ||
    ((first === '?' || first === '-') && (second === undefined || isBlank(second))) ||
    COLON_BEFORE_BLANK.test(s) ||
    HASH_AFTER_BLANK.test(s);
  const lineBreaks = ANY_BREAK.test(s);
  const specialCharacters = SPECIAL.test(s);
  const leadingSpace = first === ' ';
  const leadingBreak = isBreak(first);
  const trailingSpace = last === ' ';
  const trailingBreak = isBreak(last);
  const breakSpace = BREAK_THEN_SPACE.test(s);
  const spaceBreak = SPACE_THEN_BREAK.test(s);
  const result: ScalarAnalysis = {
    multiline: lineBreaks,
    blockPlainAllowed: true,
    singleQuotedAllowed: true,
    blockAllowed: true,
  };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) result.blockPlainAllowed = false;
  if (trailingSpace) result.blockAllowed = false;
  if (breakSpace) {
    result.blockPlainAllowed = false;
    result.singleQuotedAllowed = false;
  }
  if (spaceBreak || specialCharacters) {
    result.blockPlainAllowed = false;
    result.singleQuotedAllowed = false;
    result.blockAllowed = false;
  }
  if (lineBreaks) result.blockPlainAllowed = false;
  if (blockIndicators) result.blockPlainAllowed = false;
  return result;
}

/** Columns as go-yaml counts them: one per code point. */
function width(s: string): number {
  return /[\ud800-\udfff]/.test(s) ? Array.from(s).length : s.length;
}

const ESCAPES: Record<number, string> = {
  0: '0',
  7: 'a',
  8: 'b',
  9: 't',
  10: 'n',
  11: 'v',
  12: 'f',
  13: 'r',
  27: 'e',
  34: '"',
  92: '\\',
  133: 'N',
  160: '_',
  8232: 'L',
  8233: 'P',
};

function escapeFor(c: string): string {
  const cp = c.codePointAt(0)!;
  const named = ESCAPES[cp];
  if (named !== undefined) return `\\${named}`;
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}

interface Scalar {
  text: string;
  /** Plain scalars that are not strings (null, booleans, numbers) are written as they are. */
  requested: ScalarStyle;
}

function stringScalar(s: string): Scalar {
  if (s.includes('\n')) return { text: s, requested: 'literal' };
  const canUsePlain = !resolvesToNonString(s) && !isBase60Float(s);
  return { text: s, requested: canUsePlain ? 'plain' : 'double' };
}

function toScalar(value: null | boolean | number | string): Scalar {
  if (value === null) return { text: 'null', requested: 'plain' };
  if (typeof value === 'boolean') return { text: String(value), requested: 'plain' };
  if (typeof value === 'number') return { text: formatGoNumber(value), requested: 'plain' };
  return stringScalar(value);
}

/**
 * go-yaml's key comparison is not transitive on some key sets (`80 ` < `8A` < `9` < `80 `); there
 * Go's order follows its random map iteration. Sorting a canonical (byte-ordered) list with a
 * stable sort makes ours depend on the set of keys only, and equal to Go's wherever Go's is fixed.
 */
function sortKeysGoYamlWay(keys: string[]): string[] {
  return keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).sort(compareGoYamlKeys);
}

function isCollection(value: YamlValue): value is YamlValue[] | { [key: string]: YamlValue } {
  return value !== null && typeof value === 'object';
}

function isEmptyCollection(value: YamlValue): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return isCollection(value) && Object.keys(value).length === 0;
}

class GoYamlEmitter {
  private readonly out: string[] = [];
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];

  document(value: YamlValue): string {
    this.node(value, { mapping: false, simpleKey: false });
    // go-yaml would mark a trailing `|+` scalar "open ended", but sigs.k8s.io/yaml's output never
    // carries the `...` end marker (verified against Go): the document just ends.
    this.writeIndent();
    return this.out.join('');
  }

  private put(s: string): void {
    this.out.push(s);
    this.column++;
  }

  private putBreak(): void {
    this.out.push('\n');
    this.column = 0;
  }

  private writeBreak(c: string): void {
    if (c === '\n') {
      this.putBreak();
    } else {
      this.out.push(c);
      this.column = 0;
    }
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) {
      this.putBreak();
    }
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(
    indicator: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const c of indicator) this.put(c);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private decreaseIndent(): void {
    this.indent = this.indents.pop()!;
  }

  private node(value: YamlValue, context: { mapping: boolean; simpleKey: boolean }): void {
    if (!isCollection(value)) {
      this.scalar(toScalar(value), context.simpleKey);
    } else if (isEmptyCollection(value)) {
      const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
      this.writeIndicator(open, true, true, false);
      this.writeIndicator(close, false, false, false);
    } else if (Array.isArray(value)) {
      this.blockSequence(value, context.mapping);
    } else {
      this.blockMapping(value);
    }
  }

  private blockSequence(items: YamlValue[], mappingContext: boolean): void {
    this.increaseIndent(false, mappingContext && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, { mapping: false, simpleKey: false });
    }
    this.decreaseIndent();
  }

  private blockMapping(map: { [key: string]: YamlValue }): void {
    this.increaseIndent(false, false);
    const keys = sortKeysGoYamlWay(Object.keys(map));
    for (const key of keys) {
      this.writeIndent();
      const keyScalar = stringScalar(key);
      const simple = Buffer.byteLength(key) <= MAX_SIMPLE_KEY_BYTES && !ANY_BREAK.test(key);
      if (simple) {
        this.scalar(keyScalar, true);
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.scalar(keyScalar, false);
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.node(map[key]!, { mapping: true, simpleKey: false });
    }
    this.decreaseIndent();
  }

  private scalar(scalar: Scalar, simpleKey: boolean): void {
    const text = scalar.text;
    const analysis = analyzeScalar(text);
    let style = scalar.requested;
    if (style === 'plain') {
      if (!analysis.blockPlainAllowed) style = 'single';
      if (text.length === 0 && simpleKey) style = 'single';
    }
    if (style === 'single' && !analysis.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!analysis.blockAllowed || simpleKey)) style = 'double';

    this.increaseIndent(true, false);
    const allowBreaks = !simpleKey;
    switch (style) {
      case 'plain':
        if (!/[ \r\n\u0085\u2028\u2029]/.test(text)) this.plainWithoutFolding(text);
        else this.plain(Array.from(text), allowBreaks);
        break;
      case 'single':
        this.singleQuoted(Array.from(text), allowBreaks);
        break;
      case 'double':
        this.doubleQuoted(Array.from(text), allowBreaks);
        break;
      case 'literal':
        if (/[\r\u0085\u2028\u2029]/.test(text)) this.literal(Array.from(text));
        else this.literalLines(text);
        break;
    }
    this.decreaseIndent();
  }

  /** A plain scalar without spaces or breaks cannot fold: written in one piece. */
  private plainWithoutFolding(text: string): void {
    if (!this.whitespace) this.put(' ');
    this.out.push(text);
    this.column += width(text);
    this.whitespace = false;
    this.indention = false;
  }

  private plain(chars: string[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && !isSpace(chars[i + 1])) this.writeIndent();
        else this.put(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === '\n') this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleQuoted(chars: string[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (isSpace(c)) {
        const fold =
          allowBreaks &&
          !spaces &&
          this.column > BEST_WIDTH &&
          i > 0 &&
          i < chars.length - 1 &&
          !isSpace(chars[i + 1]);
        if (fold) this.writeIndent();
        else this.put(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === '\n') this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === "'") this.put("'");
        this.put(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
  }

  private doubleQuoted(chars: string[], allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (!isPrintable(c) || c === '\uFEFF' || isBreak(c) || c === '"' || c === '\\') {
        const escaped = escapeFor(c);
        this.out.push(escaped);
        // go-yaml counts each written character of an escape sequence as one column.
        this.column += escaped.length;
        spaces = false;
      } else if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i !== 0 && i !== chars.length - 1) {
          this.writeIndent();
          if (isSpace(chars[i + 1])) this.put('\\');
        } else {
          this.put(c);
        }
        spaces = true;
      } else {
        this.put(c);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
  }

  private literal(chars: string[]): void {
    this.writeIndicator('|', true, false, false);
    this.blockScalarHints(chars);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreak(c)) {
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.put(c);
        this.indention = false;
        breaks = false;
      }
    }
  }

  /** `literal` for text whose only breaks are LF, a line at a time. */
  private literalLines(text: string): void {
    this.writeIndicator('|', true, false, false);
    this.blockScalarHints(Array.from(text.slice(0, 1) + text.slice(-2)));
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (line !== '') {
        this.writeIndent();
        this.out.push(line);
        this.column += width(line);
        this.indention = false;
      }
      if (i < lines.length - 1) {
        this.putBreak();
        this.indention = true;
      }
    });
  }

  private blockScalarHints(chars: string[]): void {
    if (isSpace(chars[0]) || isBreak(chars[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    const last = chars.length - 1;
    if (chars.length === 0 || !isBreak(chars[last])) {
      this.writeIndicator('-', false, false, false);
    } else if (last === 0 || isBreak(chars[last - 1])) {
      this.writeIndicator('+', false, false, false);
    }
  }
}

/** One YAML document, exactly as sigs.k8s.io/yaml.Marshal writes the same JSON value. */
export function emitGoYaml(value: YamlValue): string {
  return new GoYamlEmitter().document(value);
}
