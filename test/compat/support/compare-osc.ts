/**
 * Compares two OperatingSystemConfigs (plain JSON: ours as rendered, upstream's as Go wrote it)
 * unit by unit, drop-in by drop-in and file by file, so a difference names what differs.
 */
import type { Differences } from './difference.js';

type Json = Record<string, unknown>;

interface UnitLike {
  name: string;
  command?: string;
  enable?: boolean;
  content?: string;
  dropIns?: { name: string; content: string }[];
  filePaths?: string[];
}

export interface FileLike {
  path: string;
  permissions?: number;
  content?: {
    inline?: { encoding?: string; data?: string };
    secretRef?: { name: string; dataKey: string };
    imageRef?: { image: string; filePathInImage: string };
    transmitUnencoded?: boolean;
  };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A file's bytes as text (or `base64:<...>` when they are not UTF-8), whatever the encoding. */
export function fileText(file: FileLike): string | undefined {
  const inline = file.content?.inline;
  if (!inline) return undefined;
  const bytes =
    inline.encoding === 'b64'
      ? Buffer.from(inline.data ?? '', 'base64')
      : Buffer.from(inline.data ?? '', 'utf8');
  try {
    return UTF8.decode(bytes);
  } catch {
    return `base64:${bytes.toString('base64')}`;
  }
}

function contentKind(file: FileLike): string {
  const c = file.content ?? {};
  return (
    [c.inline && 'inline', c.secretRef && 'secretRef', c.imageRef && 'imageRef'].filter(Boolean).join('+') ||
    'none'
  );
}

function compareUnits(
  d: Differences,
  subject: string,
  field: string,
  ours: UnitLike[],
  upstream: UnitLike[],
): void {
  d.compare(
    subject,
    '',
    `${field} (names in order)`,
    ours.map((u) => u.name),
    upstream.map((u) => u.name),
  );
  const theirs = new Map(upstream.map((u) => [u.name, u]));
  for (const unit of ours) {
    const other = theirs.get(unit.name);
    if (!other) continue;
    const item = `unit ${unit.name}`;
    d.compare(subject, item, 'command', unit.command, other.command);
    d.compare(subject, item, 'enable', unit.enable, other.enable);
    d.compare(subject, item, 'content', unit.content, other.content);
    d.compare(subject, item, 'filePaths', unit.filePaths ?? [], other.filePaths ?? []);
    const dropIns = unit.dropIns ?? [];
    const otherDropIns = other.dropIns ?? [];
    d.compare(
      subject,
      item,
      'dropIns (names in order)',
      dropIns.map((x) => x.name),
      otherDropIns.map((x) => x.name),
    );
    const byName = new Map(otherDropIns.map((x) => [x.name, x]));
    for (const dropIn of dropIns) {
      const o = byName.get(dropIn.name);
      if (o) d.compare(subject, `drop-in ${unit.name}/${dropIn.name}`, 'content', dropIn.content, o.content);
    }
  }
}

function compareFiles(
  d: Differences,
  subject: string,
  field: string,
  ours: FileLike[],
  upstream: FileLike[],
): void {
  d.compare(
    subject,
    '',
    `${field} (paths in order)`,
    ours.map((f) => f.path),
    upstream.map((f) => f.path),
  );
  const theirs = new Map(upstream.map((f) => [f.path, f]));
  for (const file of ours) {
    const other = theirs.get(file.path);
    if (!other) continue;
    const item = `file ${file.path}`;
    d.compare(subject, item, 'permissions', file.permissions, other.permissions);
    d.compare(subject, item, 'content kind', contentKind(file), contentKind(other));
    d.compare(subject, item, 'encoding', file.content?.inline?.encoding, other.content?.inline?.encoding);
    d.compare(subject, item, 'content', fileText(file), fileText(other));
    d.compare(subject, item, 'secretRef', file.content?.secretRef, other.content?.secretRef);
    d.compare(subject, item, 'imageRef', file.content?.imageRef, other.content?.imageRef);
    d.compare(
      subject,
      item,
      'transmitUnencoded',
      file.content?.transmitUnencoded,
      other.content?.transmitUnencoded,
    );
  }
}

/** Everything a node runs: the spec (and the extension's additions in the status). */
export function compareOsc(d: Differences, subject: string, ours: Json, upstream: Json): void {
  const spec = (o: Json) => (o.spec ?? {}) as Json;
  const status = (o: Json) => (o.status ?? {}) as Json;
  for (const field of ['type', 'purpose', 'criConfig', 'providerConfig', 'reloadConfigFilePath']) {
    d.compare(subject, '', `spec.${field}`, spec(ours)[field], spec(upstream)[field]);
  }
  compareUnits(
    d,
    subject,
    'spec.units',
    (spec(ours).units ?? []) as UnitLike[],
    (spec(upstream).units ?? []) as UnitLike[],
  );
  compareFiles(
    d,
    subject,
    'spec.files',
    (spec(ours).files ?? []) as FileLike[],
    (spec(upstream).files ?? []) as FileLike[],
  );
  compareUnits(
    d,
    subject,
    'status.extensionUnits',
    (status(ours).extensionUnits ?? []) as UnitLike[],
    (status(upstream).extensionUnits ?? []) as UnitLike[],
  );
  compareFiles(
    d,
    subject,
    'status.extensionFiles',
    (status(ours).extensionFiles ?? []) as FileLike[],
    (status(upstream).extensionFiles ?? []) as FileLike[],
  );
}

/** Labels and annotations, key by key. */
export function compareMetadata(d: Differences, subject: string, ours: Json, upstream: Json): void {
  const meta = (o: Json) => (o.metadata ?? {}) as { labels?: Json; annotations?: Json };
  for (const field of ['labels', 'annotations'] as const) {
    const a = meta(ours)[field] ?? {};
    const b = meta(upstream)[field] ?? {};
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      d.compare(subject, '', `metadata.${field}[${key}]`, a[key], b[key]);
    }
  }
}
