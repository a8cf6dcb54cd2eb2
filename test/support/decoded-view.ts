/**
 * A readable view of rendered objects for golden files, appended after their exact bytes: every
 * base64 value decoded, YAML inside secrets (`osc.yaml`, a ManagedResource secret's registry
 * objects) shown as YAML and decoded in turn, and the inline files of OperatingSystemConfigs as
 * text. A change of what a node runs (a kubelet flag, say) is then a readable diff, not a new blob.
 */
import { parseYaml, stringifyYaml } from '../../api/index.js';

interface Rendered {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  data?: Record<string, string>;
  spec?: { files?: { path: string; content?: { inline?: { encoding?: string; data?: string } } }[] };
}

const isObject = (v: unknown): v is Rendered => typeof v === 'object' && v !== null && !Array.isArray(v);

function nameOf(o: Rendered): string {
  const { namespace, name } = o.metadata ?? {};
  return `${o.kind} ${namespace ? `${namespace}/` : ''}${name}`;
}

/** A secret's value: YAML shown whole and readable, else the text; binary stays base64. */
function decodeValue(key: string, base64: string): unknown {
  const text = Buffer.from(base64, 'base64').toString('utf8');
  if (Buffer.from(text, 'utf8').toString('base64') !== base64) return base64;
  if (key.endsWith('.yaml') || key.endsWith('.yml')) {
    const parsed = parseYaml(text);
    if (isObject(parsed)) return readable(parsed);
  }
  return text;
}

/** The object with a Secret's data decoded and an OSC's inline b64 files as text. */
function readable(o: Rendered): unknown {
  if (o.kind === 'Secret' && o.data)
    return { ...o, data: Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, decodeValue(k, v)])) };
  if (o.kind === 'OperatingSystemConfig' && o.spec?.files)
    return {
      ...o,
      spec: {
        ...o.spec,
        files: o.spec.files.map((f) =>
          f.content?.inline?.encoding === 'b64'
            ? {
                ...f,
                content: {
                  ...f.content,
                  inline: { encoding: 'b64, shown decoded', data: decodeText(f.content.inline.data) },
                },
              }
            : f,
        ),
      },
    };
  return o;
}

const decodeText = (base64 = '') => Buffer.from(base64, 'base64').toString('utf8');

/** The decoded parts of one top-level object, or undefined when it has none. */
function decoded(o: Rendered): unknown {
  if (o.kind === 'Secret' && o.data)
    return Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, decodeValue(k, v)]));
  if (o.kind === 'OperatingSystemConfig') {
    const files = (o.spec?.files ?? []).filter((f) => f.content?.inline?.encoding === 'b64');
    if (files.length === 0) return undefined;
    return { files: Object.fromEntries(files.map((f) => [f.path, decodeText(f.content?.inline?.data)])) };
  }
  return undefined;
}

/** `---` and a `decoded:` document of every object that has something to decode; '' if none has. */
export function decodedView(objects: readonly unknown[]): string {
  const view: Record<string, unknown> = {};
  for (const o of objects) {
    if (!isObject(o)) continue;
    const parts = decoded(o);
    if (parts !== undefined) view[nameOf(o)] = parts;
  }
  return Object.keys(view).length === 0 ? '' : `---\n${stringifyYaml({ decoded: view })}`;
}
