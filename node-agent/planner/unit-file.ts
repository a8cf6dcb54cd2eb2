/**
 * A unit file or drop-in as systemd reads it (systemd v255 src/shared/conf-parser.c,
 * man systemd.syntax(7)): lines starting with `#` or `;` are comments, whitespace around keys and
 * values is not part of them, a line ending in `\` continues on the next one (joined with a space;
 * comment lines inside a continuation are dropped), a section may repeat and its directives add
 * up, and an empty assignment (`ExecStart=`) resets the list that directive built so far.
 *
 * The result keeps, per section and directive, the list of values in file order: directives that
 * accumulate (`ExecStartPre=`, `Environment=`) depend on that order, and a single-valued directive
 * compares equal exactly when its values do, so a change systemd would see is never hidden.
 */
export type UnitSections = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const comment = line.startsWith('#') || line.startsWith(';');
    if (pending !== undefined) {
      // systemd skips comment lines inside a continuation and appends the others as read
      if (comment) continue;
      if (line.endsWith('\\')) {
        pending = `${pending}${raw.trimEnd().slice(0, -1)} `;
        continue;
      }
      lines.push(`${pending}${raw}`.trim());
      pending = undefined;
      continue;
    }
    if (line === '' || comment) continue;
    // the backslash becomes a space (systemd.syntax(7))
    if (line.endsWith('\\') && !line.startsWith('[')) pending = `${line.slice(0, -1)} `;
    else lines.push(line);
  }
  if (pending !== undefined) lines.push(pending.trim());
  return lines;
}

/**
 * Command lines and unit lists are split into words by systemd, so runs of whitespace between
 * words (a re-wrapped continuation) mean nothing there; inside quotes they do and are kept.
 */
const WORD_LIST =
  /^(Exec[A-Za-z]*|After|Before|Wants|Requires|Requisite|BindsTo|PartOf|Conflicts|WantedBy|RequiredBy|UpheldBy|Also)$/;

function collapseWords(value: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (quote) {
      if (c === '\\' && i + 1 < value.length) {
        out += c + value[++i];
        continue;
      }
      if (c === quote) quote = undefined;
      out += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      out += c;
    } else if (/\s/.test(c)) {
      if (!out.endsWith(' ')) out += ' ';
    } else out += c;
  }
  return out;
}

export function normalizedValue(key: string, value: string): string {
  return WORD_LIST.test(key) ? collapseWords(value) : value;
}

/** Directives outside a section (before the first header) go under the empty section name. */
export function parseUnitFile(text: string, into?: Map<string, Map<string, string[]>>): UnitSections {
  const sections = into ?? new Map<string, Map<string, string[]>>();
  let section = '';
  for (const line of logicalLines(text)) {
    if (line.startsWith('[') && line.endsWith(']')) {
      section = line.slice(1, -1).trim();
      continue;
    }
    const eq = line.indexOf('=');
    // systemd warns about and ignores a line without `=`; so does this parser
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    const value = normalizedValue(key, line.slice(eq + 1).trim());
    let directives = sections.get(section);
    if (!directives) {
      directives = new Map();
      sections.set(section, directives);
    }
    if (value === '') directives.set(key, []);
    else directives.set(key, [...(directives.get(key) ?? []), value]);
  }
  return sections;
}

/**
 * A unit file with its drop-ins, as systemd combines them: the unit file first, then the drop-ins
 * in the lexical order of their names (systemd.unit(5), "drop-in files ... are sorted by filename").
 */
export function parseUnitWithDropIns(
  content: string | undefined,
  dropIns: readonly { readonly name: string; readonly content: string }[],
): UnitSections {
  const sections = new Map<string, Map<string, string[]>>();
  if (content !== undefined) parseUnitFile(content, sections);
  const sorted = [...dropIns].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const dropIn of sorted) parseUnitFile(dropIn.content, sections);
  return sections;
}
