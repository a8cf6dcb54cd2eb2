/**
 * The documents inside rendered node configuration, as texts a validating oracle takes: the
 * objects themselves, the node agent's configuration file inside each OSC, and the osc.yaml inside
 * each shoot Secret of a ManagedResource secret (its registry data, YAML per object).
 */
import { brotliDecompressSync } from 'node:zlib';
import { parseYaml, stringifyYaml } from '../../../api/index.js';

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents, read by path
type Json = any;

export interface NamedDocument {
  /** e.g. `OperatingSystemConfig gardener-node-agent-worker-a-…-original` or `… file /var/lib/…`. */
  readonly name: string;
  readonly text: string;
}

const fromBase64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

/** The objects of a multi-document golden file, without its trailing `decoded:` view. */
export function goldenObjects(text: string): Json[] {
  return text
    .split(/^---\n/m)
    .map((d) => parseYaml(d) as Json)
    .filter((o) => o && typeof o === 'object' && !('decoded' in o));
}

/** The node agent's configuration files of an OSC (`…/gardener-node-agent/config*.yaml`). */
export function nodeAgentConfigs(osc: Json): NamedDocument[] {
  return (osc.spec?.files ?? [])
    .filter((f: Json) => /\/gardener-node-agent\/config[^/]*\.yaml$/.test(f.path) && f.content?.inline)
    .map((f: Json) => ({
      name: `${osc.metadata.name} file ${f.path}`,
      text: f.content.inline.encoding === 'b64' ? fromBase64(f.content.inline.data) : f.content.inline.data,
    }));
}

/** The osc.yaml of a shoot Secret (data base64). */
export function oscYamlOf(secret: Json): NamedDocument | undefined {
  const data = secret.data?.['osc.yaml'];
  return data === undefined
    ? undefined
    : { name: `${secret.metadata.name} osc.yaml`, text: fromBase64(data) };
}

/**
 * The shoot objects a ManagedResource secret carries: its registry data, one YAML per key (v1.91)
 * or all objects in one brotli-compressed `data.yaml.br` (v1.150, managedresources.NewSecret).
 */
export function registryObjects(secret: Json): Json[] {
  return Object.entries((secret.data ?? {}) as Record<string, string>).flatMap(([key, value]) => {
    const bytes = Buffer.from(value, 'base64');
    const text = (key.endsWith('.br') ? brotliDecompressSync(bytes) : bytes).toString('utf8');
    return text
      .split(/^---\n/m)
      .map((d) => parseYaml(d) as Json)
      .filter((o) => o && typeof o === 'object');
  });
}

export const asDocument = (o: Json): NamedDocument => ({
  name: `${o.kind} ${o.metadata?.name}`,
  text: stringifyYaml(o),
});
