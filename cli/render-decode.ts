/**
 * `render --decode`: the rendered objects in a form for review and snapshot tests, not for
 * applying. Base64 is decoded wherever it hides text: an OperatingSystemConfig's `b64` file
 * contents become plain inline contents (`encoding: ""`, the same file on the node), a Secret's
 * `data` becomes `stringData` (as kubectl takes it), and a decoded text that is itself a YAML
 * object (a ManagedResource secret's manifests, the osc.yaml inside an OSC secret) is decoded
 * in turn, so a kubelet change diffs as the one changed line of its configuration. A Brotli-compressed
 * key (`data.yaml.br`, a v1.150.0 ManagedResource secret) is shown decompressed under its own key.
 * Our YAML codec
 * writes multi-line strings as literal blocks. Bytes that are not UTF-8 text stay base64.
 *
 * File names for `--output` drop the hash-like segments of object names (the pool key hash,
 * `46fed` in v1.91.4 and `65ff4f8a02aee73f` in v1.150.0, the checksum suffix `bb6026ad` of
 * ManagedResource secrets), so a changed object keeps
 * its file instead of appearing as a rename. Documented in docs/snapshots.md.
 */
import { brotliDecompressSync } from 'node:zlib';
import { parseYamlDocuments, stringifyYaml } from '../api/index.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The text of base64 `data` when it is UTF-8, else undefined (it stays base64). */
function text(base64: string, brotli = false): string | undefined {
  let bytes = Buffer.from(base64, 'base64');
  if (bytes.toString('base64') !== base64.replace(/\s/g, '')) return undefined;
  if (brotli) {
    try {
      bytes = brotliDecompressSync(bytes);
    } catch {
      return undefined;
    }
  }
  const decoded = bytes.toString('utf8');
  return Buffer.from(decoded, 'utf8').equals(bytes) ? decoded : undefined;
}

/** A decoded text that holds Kubernetes objects, decoded too; any other text as it is. */
function decodeText(value: string): string {
  let documents: unknown[];
  try {
    documents = parseYamlDocuments(value);
  } catch {
    return value;
  }
  if (documents.length === 0 || !documents.every((d) => isObject(d) && typeof d.kind === 'string'))
    return value;
  return documents.map((d) => stringifyYaml(decodeObject(d as Json))).join('---\n');
}

function decodeOscFiles(spec: Json): void {
  if (!Array.isArray(spec.files)) return;
  for (const file of spec.files) {
    const inline = isObject(file) && isObject(file.content) ? file.content.inline : undefined;
    if (!isObject(inline) || inline.encoding !== 'b64' || typeof inline.data !== 'string') continue;
    const decoded = text(inline.data);
    if (decoded !== undefined) {
      // the file's bytes as they are: a file is never re-encoded, even one that holds YAML
      inline.encoding = '';
      inline.data = decoded;
    }
  }
}

function decodeSecretData(secret: Json): void {
  if (!isObject(secret.data)) return;
  const stringData: Json = isObject(secret.stringData) ? { ...secret.stringData } : {};
  const data: Json = {};
  for (const [key, value] of Object.entries(secret.data)) {
    const decoded = typeof value === 'string' ? text(value, key.endsWith('.br')) : undefined;
    if (decoded === undefined) data[key] = value;
    else stringData[key] = decodeText(decoded);
  }
  if (Object.keys(data).length > 0) secret.data = data;
  else delete secret.data;
  if (Object.keys(stringData).length > 0) secret.stringData = stringData;
}

/** One object in its review form (a copy). */
export function decodeObject(object: Json): Json {
  const copy = structuredClone(object);
  if (copy.kind === 'Secret') decodeSecretData(copy);
  if (copy.kind === 'OperatingSystemConfig' && isObject(copy.spec)) decodeOscFiles(copy.spec);
  return copy;
}

/** `gardener-node-agent-cpu-worker-46fed-gardenlinux-init` → `gardener-node-agent-cpu-worker-gardenlinux-init` */
export function stableName(name: string): string {
  return name
    .split('-')
    .filter((segment, i, all) => {
      const hashLike = /\d/.test(segment) && /^[0-9a-f]+$/.test(segment);
      // the pool key hash (5 hex digits in v1.91.4, 16 in v1.150.0) anywhere, a checksum suffix (8) at the end
      return !(
        hashLike &&
        (segment.length === 5 || segment.length === 16 || (segment.length === 8 && i === all.length - 1))
      );
    })
    .join('-');
}

/**
 * File names of the objects for `--output` in the review form: `kind_namespace_name.yaml` with
 * stable names; objects whose stable names would collide keep their full names.
 */
export function stableFileNames(
  objects: readonly Json[],
  fileName: (o: Json, name: string) => string,
): string[] {
  const nameOf = (o: Json) => String((o.metadata as { name?: string } | undefined)?.name ?? '');
  const stable = objects.map((o) => fileName(o, stableName(nameOf(o))));
  const count = new Map<string, number>();
  for (const s of stable) count.set(s, (count.get(s) ?? 0) + 1);
  return objects.map((o, i) => (count.get(stable[i]!)! > 1 ? fileName(o, nameOf(o)) : stable[i]!));
}
