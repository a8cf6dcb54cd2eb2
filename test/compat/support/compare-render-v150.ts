/**
 * Our whole v1.150.0 render against gardenlet v1.150.0's (the oracle's `render` op), object by
 * object: OSCs, the ManagedResource secrets with the shoot objects inside their compressed
 * registry data, and the ManagedResource. A file whose content differs is one difference naming
 * the file (so V150-2, gardener-user's run.sh, is declared once), and the rest of the object
 * must then be equal; names and checksums derived from bytes are compared where the bytes are
 * equal (upstream's functions recompute them on our bytes in oracle-names and oracle-osc-secret).
 */
import { brotliDecompressSync } from 'node:zlib';
import { parseYaml } from '../../../api/index.js';
import { logicalKey } from './compare-render.js';
import { type Differences, deepEqual } from './difference.js';

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents, read by path
type Json = any;

/** What the oracle's fake client adds (resourceVersion), and the status it leaves empty. */
function withoutServerFields(o: Json): Json {
  const { resourceVersion: _, ...metadata } = o.metadata ?? {};
  const copy: Json = { ...o, metadata };
  if (o.kind === 'OperatingSystemConfig' || o.kind === 'ManagedResource') delete copy.status;
  return copy;
}

/** Compares the spec files of two OSCs by content, then the OSCs without the differing files. */
function compareOscLike(d: Differences, subject: string, ours: Json, upstream: Json): void {
  const files = (o: Json): Map<string, Json> =>
    new Map(((o.spec?.files ?? []) as Json[]).map((f) => [String(f.path), f]));
  const a = files(ours);
  const b = files(upstream);
  const differing = new Set<string>();
  for (const [path, file] of a) {
    const other = b.get(path);
    if (other && !deepEqual(file, other)) {
      differing.add(path);
      d.add(subject, `file ${path}`, 'content', file.content, other.content);
    }
  }
  const rest = (o: Json): Json => ({
    ...o,
    spec: {
      ...o.spec,
      files: ((o.spec?.files ?? []) as Json[]).filter((f) => !differing.has(String(f.path))),
    },
  });
  d.compare(subject, '', 'object (without the files above)', rest(ours), rest(upstream));
}

function registry(secret: Json): { key: string; text: string }[] {
  return Object.entries((secret.data ?? {}) as Record<string, string>).map(([key, value]) => {
    const bytes = Buffer.from(value, 'base64');
    return { key, text: (key.endsWith('.br') ? brotliDecompressSync(bytes) : bytes).toString('utf8') };
  });
}

const documents = (text: string): Json[] =>
  text
    .split(/^---\n/m)
    .map((t) => parseYaml(t) as Json)
    .filter((o) => o && typeof o === 'object');

function compareShootObject(d: Differences, subject: string, ours: Json, upstream: Json): void {
  const oscYaml = (o: Json): string | undefined =>
    o.kind === 'Secret' && o.data?.['osc.yaml'] !== undefined
      ? Buffer.from(o.data['osc.yaml'], 'base64').toString('utf8')
      : undefined;
  const a = oscYaml(ours);
  const b = oscYaml(upstream);
  if (a === undefined || b === undefined || a === b) {
    d.compare(subject, '', 'object', ours, upstream);
    return;
  }
  compareOscLike(d, `${subject} osc.yaml`, parseYaml(a), parseYaml(b));
  // the checksum annotation follows from osc.yaml, which differs
  const rest = (o: Json): Json => {
    const { ['checksum/data-script']: _, ...annotations } = o.metadata?.annotations ?? {};
    return { ...o, metadata: { ...o.metadata, annotations }, data: Object.keys(o.data ?? {}) };
  };
  d.compare(subject, '', 'object (without osc.yaml and its checksum)', rest(ours), rest(upstream));
}

function compareManagedResourceSecret(d: Differences, subject: string, ours: Json, upstream: Json): void {
  const a = registry(ours);
  const b = registry(upstream);
  d.compare(
    subject,
    '',
    'data keys',
    a.map((e) => e.key),
    b.map((e) => e.key),
  );
  const sameBytes = deepEqual(a, b);
  if (!sameBytes)
    for (const entry of a) {
      const other = b.find((e) => e.key === entry.key);
      if (!other) continue;
      const ourObjects = documents(entry.text);
      const theirObjects = documents(other.text);
      d.compare(
        subject,
        '',
        `data[${entry.key}] objects`,
        ourObjects.map(logicalKey),
        theirObjects.map(logicalKey),
      );
      ourObjects.forEach((o, i) => {
        if (theirObjects[i]) compareShootObject(d, `${subject} ${logicalKey(o)}`, o, theirObjects[i]);
      });
    }
  // the name's hash follows from the data: compared where the data is the same
  const meta = (o: Json): Json => ({
    ...o.metadata,
    name: sameBytes ? o.metadata.name : logicalKey(o),
  });
  d.compare(subject, '', 'metadata', meta(ours), meta(upstream));
  d.compare(subject, '', 'type, immutable', [ours.type, ours.immutable], [upstream.type, upstream.immutable]);
}

/** The ManagedResource without the secret names' hashes (they follow from the data) and in name order. */
function logicalManagedResource(o: Json): Json {
  const unhashed = (name: string) => name.replace(/-[0-9a-f]{8}$/, '');
  return {
    ...o,
    metadata: {
      ...o.metadata,
      annotations: Object.values(o.metadata?.annotations ?? {})
        .map((v) => unhashed(String(v)))
        .sort(),
    },
    spec: {
      ...o.spec,
      secretRefs: ((o.spec?.secretRefs ?? []) as Json[]).map((r) => unhashed(r.name)).sort(),
    },
  };
}

export function compareSeedObjectsV150(
  d: Differences,
  ours: readonly Json[],
  upstream: readonly Json[],
): void {
  const mine = new Map(ours.map((o) => [logicalKey(o), withoutServerFields(o)]));
  const theirs = new Map(upstream.map((o) => [logicalKey(o), withoutServerFields(o)]));
  for (const key of new Set([...mine.keys(), ...theirs.keys()])) {
    const a = mine.get(key);
    const b = theirs.get(key);
    if (!a || !b) {
      d.add(key, '', 'object', a ? 'rendered' : 'not rendered', b ? 'rendered' : 'not rendered');
      continue;
    }
    if (a.kind === 'OperatingSystemConfig') compareOscLike(d, key, a, b);
    else if (a.kind === 'Secret' && a.metadata?.labels?.['managed-resource'])
      compareManagedResourceSecret(d, key, a, b);
    else if (a.kind === 'ManagedResource')
      d.compare(
        key,
        '',
        'object (secret names without hashes)',
        logicalManagedResource(a),
        logicalManagedResource(b),
      );
    else d.compare(key, '', 'object', a, b);
  }
}
