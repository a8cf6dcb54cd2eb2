/**
 * A ManagedResource secret's data in the Gardener v1.150.0 contract (gardener v1.150.0
 * pkg/utils/managedresources/registry.go, `SerializedObjects`): every object as YAML, in the order
 * of its `<kind>__<namespace>__<name>.yaml` file name, each ending in a newline and separated by
 * `---`, all Brotli-compressed into the one key `data.yaml.br` (andybalholm/brotli's writer at
 * its default quality 6 and window 22, which Node's zlib reproduces byte for byte). Objects carry
 * no `creationTimestamp: null` any more: apimachinery v0.36 omits a zero one.
 */
import { brotliCompressSync, constants } from 'node:zlib';
import { stringifyYaml } from '../../api/index.js';
import { registryKey } from './managed-resource.js';

export const COMPRESSED_DATA_KEY = 'data.yaml.br';

/** The concatenated, uncompressed objects (what `data.yaml.br` holds). */
export function serializedObjectsV150(objects: readonly Record<string, unknown>[]): string {
  const byName = new Map<string, string>();
  for (const o of objects) {
    const name = registryKey(o);
    if (byName.has(name)) throw new Error(`duplicate filename in registry: "${name}"`);
    byName.set(name, stringifyYaml(o));
  }
  const names = [...byName.keys()].sort();
  let out = '';
  names.forEach((name, i) => {
    const text = byName.get(name)!;
    out += text.endsWith('\n') ? text : `${text}\n`;
    if (!text.endsWith('---\n') && i < names.length - 1) out += '---\n';
  });
  return out;
}

export function registryDataV150(objects: readonly Record<string, unknown>[]): Record<string, Buffer> {
  const compressed = brotliCompressSync(Buffer.from(serializedObjectsV150(objects), 'utf8'), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 6, [constants.BROTLI_PARAM_LGWIN]: 22 },
  });
  return { [COMPRESSED_DATA_KEY]: compressed };
}
