/**
 * Check 2: the same inputs rendered by us and by gardenlet's own code (through the oracle), object
 * by object. Names derived from bytes (ManagedResource secrets) are matched by their logical
 * part; that they are derived correctly from our bytes is checked apart (`derivedNames`).
 */
import { parseYaml } from '../../../api/index.js';
import { compareMetadata, compareOsc } from './compare-osc.js';
import type { Differences } from './difference.js';

type Json = Record<string, unknown>;

interface Meta {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const meta = (o: Json): Meta => (o.metadata ?? {}) as Meta;
const MR_SECRET_HASH = /-[0-9a-f]{8}$/;

/** `Secret managedresource-shoot-gardener-node-agent-pool` for `...-pool-1a2b3c4d`. */
export function logicalKey(o: Json): string {
  const m = meta(o);
  const name = m.labels?.['managed-resource'] ? (m.name ?? '').replace(MR_SECRET_HASH, '') : (m.name ?? '');
  return `${String(o.kind)} ${name}`;
}

const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

function compareRegistryEntry(
  d: Differences,
  subject: string,
  key: string,
  ours: string,
  upstream: string,
): void {
  const a = parseYaml(ours) as Json;
  const b = parseYaml(upstream) as Json;
  const inner = `${subject} ${key}`;
  if (a.kind !== 'Secret' || b.kind !== 'Secret') {
    const before = d.found.length;
    d.compare(subject, '', `data[${key}]`, a, b);
    if (d.found.length === before) d.compare(subject, '', `data[${key}] bytes`, ours, upstream);
    return;
  }
  const before = d.found.length;
  const dataA = (a.data ?? {}) as Record<string, string>;
  const dataB = (b.data ?? {}) as Record<string, string>;
  d.compare(inner, '', 'data keys', Object.keys(dataA).sort(), Object.keys(dataB).sort());
  for (const k of Object.keys(dataA)) {
    if (dataB[k] === undefined) continue;
    if (k === 'osc.yaml') {
      const oursOsc = parseYaml(decode(dataA[k]!)) as Json;
      const theirOsc = parseYaml(decode(dataB[k]!)) as Json;
      compareMetadata(d, `${inner} osc.yaml`, oursOsc, theirOsc);
      compareOsc(d, `${inner} osc.yaml`, oursOsc, theirOsc);
    } else {
      d.compare(inner, '', `data[${k}]`, decode(dataA[k]!), decode(dataB[k]!));
    }
  }
  const contentSame = d.found.length === before;
  // A checksum annotation follows from the data: compared where the data is the same.
  const withoutChecksum = (o: Json): Json => {
    const m = { ...((o.metadata ?? {}) as Json) };
    const annotations = { ...((m.annotations ?? {}) as Record<string, string>) };
    if (!contentSame) delete annotations['checksum/data-script'];
    return { metadata: { ...m, annotations } };
  };
  compareMetadata(d, inner, withoutChecksum(a), withoutChecksum(b));
  if (d.found.length === before) d.compare(subject, '', `data[${key}] bytes`, ours, upstream);
}

function compareSecret(d: Differences, subject: string, ours: Json, upstream: Json): void {
  compareMetadata(d, subject, ours, upstream);
  d.compare(subject, '', 'type', ours.type ?? 'Opaque', upstream.type ?? 'Opaque');
  d.compare(subject, '', 'immutable', ours.immutable, upstream.immutable);
  const a = (ours.data ?? {}) as Record<string, string>;
  const b = (upstream.data ?? {}) as Record<string, string>;
  d.compare(subject, '', 'data keys', Object.keys(a).sort(), Object.keys(b).sort());
  for (const key of Object.keys(a)) {
    if (b[key] === undefined) continue;
    if (meta(ours).labels?.['managed-resource'])
      compareRegistryEntry(d, subject, key, decode(a[key]!), decode(b[key]!));
    else d.compare(subject, '', `data[${key}]`, decode(a[key]!), decode(b[key]!));
  }
}

/** Secret names in the ManagedResource, by logical name (their hashes follow from their data). */
function logicalSecretRefs(mr: Json): string[] {
  const refs = ((mr.spec as Json | undefined)?.secretRefs ?? []) as { name: string }[];
  return refs.map((r) => r.name.replace(MR_SECRET_HASH, '')).sort();
}

function compareManagedResource(d: Differences, subject: string, ours: Json, upstream: Json): void {
  d.compare(subject, '', 'metadata.labels', meta(ours).labels, meta(upstream).labels);
  const refAnnotations = (o: Json) =>
    Object.keys(meta(o).annotations ?? {}).filter((k) => k.startsWith('reference.resources.gardener.cloud/'))
      .length;
  d.compare(subject, '', 'reference annotations (count)', refAnnotations(ours), refAnnotations(upstream));
  // Upstream lists the secrets in Go map order (random); the set is what counts.
  d.compare(
    subject,
    '',
    'spec.secretRefs (logical names)',
    logicalSecretRefs(ours),
    logicalSecretRefs(upstream),
  );
  const spec = (o: Json) => (o.spec ?? {}) as Json;
  for (const field of [
    'class',
    'injectLabels',
    'keepObjects',
    'forceOverwriteLabels',
    'forceOverwriteAnnotations',
  ]) {
    d.compare(subject, '', `spec.${field}`, spec(ours)[field], spec(upstream)[field]);
  }
}

export function compareSeedObjects(d: Differences, ours: readonly Json[], upstream: readonly Json[]): void {
  const theirs = new Map(upstream.map((o) => [logicalKey(o), o]));
  const mine = new Map(ours.map((o) => [logicalKey(o), o]));
  for (const key of new Set([...mine.keys(), ...theirs.keys()])) {
    const a = mine.get(key);
    const b = theirs.get(key);
    if (!a || !b) {
      d.add(key, '', 'object', a ? 'rendered' : 'not rendered', b ? 'rendered' : 'not rendered');
      continue;
    }
    d.compare(key, '', 'metadata.namespace', meta(a).namespace, meta(b).namespace);
    if (a.kind === 'OperatingSystemConfig') {
      compareMetadata(d, key, a, b);
      compareOsc(d, key, a, b);
    } else if (a.kind === 'Secret') {
      compareSecret(d, key, a, b);
    } else if (a.kind === 'ManagedResource') {
      compareManagedResource(d, key, a, b);
    } else {
      d.compare(key, '', 'object', a, b);
    }
  }
}
