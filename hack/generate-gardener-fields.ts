/**
 * Writes api/schema/gardener-fields.ts and gardener-fields-v150.ts: the JSON field names of
 * Gardener's Shoot, CloudProfile and Seed (core.gardener.cloud/v1beta1 at v1.91.4, and at v1.150.0
 * where they live in the separate module github.com/gardener/gardener/pkg/apis) and of the
 * Kubernetes types they embed, read from the Go sources' `json:` tags, so the unknown-field check
 * (`api/schema/unknown-fields.ts`) knows every field the contract's Gardener knows, not only the
 * subset our schemas model.
 *
 *   npm run generate:gardener-fields
 *
 * Needs Go: the modules come from the module cache (`go mod download`, the Go module proxy).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One contract's sources and the file and constant they are written to. */
interface Contract {
  readonly gardener: string;
  /** The package of the core.gardener.cloud/v1beta1 types inside the Gardener module. */
  readonly coreDir: string;
  readonly k8sApi: string;
  readonly apimachinery: string;
  readonly file: string;
  readonly constant: string;
}

const CONTRACTS: readonly Contract[] = [
  {
    gardener: 'github.com/gardener/gardener@v1.91.4',
    coreDir: 'pkg/apis/core/v1beta1',
    k8sApi: 'k8s.io/api@v0.29.3',
    apimachinery: 'k8s.io/apimachinery@v0.29.3',
    file: 'gardener-fields.ts',
    constant: 'GARDENER_FIELD_TYPES',
  },
  {
    // since gardener v1.137.0 pkg/apis is a module of its own; v1.150.0 builds with k8s 0.36.4
    gardener: 'github.com/gardener/gardener/pkg/apis@v1.150.0',
    coreDir: 'core/v1beta1',
    k8sApi: 'k8s.io/api@v0.36.4',
    apimachinery: 'k8s.io/apimachinery@v0.36.4',
    file: 'gardener-fields-v150.ts',
    constant: 'GARDENER_FIELD_TYPES_V150',
  },
];
const ROOTS = ['Shoot', 'CloudProfile', 'Seed'];

/** Types whose JSON is not an object of fields (or whose fields are someone else's). */
const SPECIAL: Record<string, 'leaf' | 'raw'> = {
  'runtime.RawExtension': 'raw',
  'metav1.FieldsV1': 'raw',
  'metav1.Time': 'leaf',
  'metav1.MicroTime': 'leaf',
  'metav1.Duration': 'leaf',
  'resource.Quantity': 'leaf',
  'intstr.IntOrString': 'leaf',
  'types.UID': 'leaf',
};

function moduleDir(module: string): string {
  const out = execFileSync('go', ['mod', 'download', '-json', module], { encoding: 'utf8' });
  return (JSON.parse(out) as { Dir: string }).Dir;
}

/** package qualifier → directory; the first is Gardener's (unqualified names there). */
function packages(contract: Contract): Record<string, string> {
  const gardener = moduleDir(contract.gardener);
  const api = moduleDir(contract.k8sApi);
  const machinery = moduleDir(contract.apimachinery);
  return {
    '': join(gardener, contract.coreDir),
    corev1: join(api, 'core/v1'),
    autoscalingv1: join(api, 'autoscaling/v1'),
    rbacv1: join(api, 'rbac/v1'),
    metav1: join(machinery, 'pkg/apis/meta/v1'),
  };
}

interface GoField {
  readonly json: string; // '' for an inlined struct
  readonly type: string; // qualified: `corev1.Taint`, `[]Worker`, `map[string]X`
}

/** The struct types of one package, with their JSON-tagged fields (types qualified by `pkg`). */
function parseStructs(dir: string, pkg: string, out: Map<string, GoField[]>): void {
  const qualify = (type: string): string => {
    const m = /^(\*|\[\]\*?|map\[string\]\*?(?:\[\])?)?(.*)$/.exec(type)!;
    const name = m[2]!;
    const prefix = (m[1] ?? '').replaceAll('*', '');
    const known = name.includes('.') || /^[a-z]/.test(name) ? name : pkg ? `${pkg}.${name}` : name;
    return prefix + known;
  };
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.go') || file.endsWith('_test.go') || file.startsWith('zz_generated')) continue;
    const lines = readFileSync(join(dir, file), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const start = /^type (\w+) struct \{$/.exec(lines[i]!);
      if (!start) continue;
      const fields: GoField[] = [];
      for (i++; i < lines.length && lines[i] !== '}'; i++) {
        const line = lines[i]!.replace(/\/\/.*$/, '').trim();
        if (line === '') continue;
        const tag = /`json:"([^"]*)"/.exec(line);
        if (!tag) continue; // no JSON form (unexported, or protobuf-only)
        const [name, ...opts] = tag[1]!.split(',');
        if (name === '-') continue;
        const words = line.slice(0, line.indexOf('`')).trim().split(/\s+/);
        const type = qualify(words.length === 1 ? words[0]! : words[1]!);
        fields.push({ json: opts.includes('inline') && !name ? '' : name!, type });
      }
      out.set(pkg ? `${pkg}.${start[1]}` : start[1]!, fields);
    }
  }
}

/** `leaf`, `raw`, a type name, `[]X` or `map[X]` for the walker, from Go's field type. */
function fieldRef(type: string, structs: Map<string, GoField[]>): string {
  if (type.startsWith('[]')) {
    const item = fieldRef(type.slice(2), structs);
    return item === 'leaf' || item === 'raw' ? item : `[]${item}`;
  }
  if (type.startsWith('map[string]')) {
    const value = fieldRef(type.slice('map[string]'.length), structs);
    return value === 'leaf' || value === 'raw' ? value : `map[${value}]`;
  }
  if (SPECIAL[type]) return SPECIAL[type]!;
  return structs.has(type) ? type : 'leaf'; // scalars and named strings (`type CRIName string`)
}

function generate(contract: Contract): void {
  const structs = new Map<string, GoField[]>();
  for (const [pkg, dir] of Object.entries(packages(contract))) parseStructs(dir, pkg, structs);
  const types: Record<string, Record<string, string>> = {};
  const pending = [...ROOTS];
  const fieldsOf = (name: string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const f of structs.get(name) ?? []) {
      if (f.json === '') Object.assign(out, fieldsOf(f.type));
      else out[f.json] = fieldRef(f.type, structs);
    }
    return out;
  };
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (types[name]) continue;
    if (!structs.has(name)) throw new Error(`no struct ${name} in the sources`);
    const fields = fieldsOf(name);
    types[name] = Object.fromEntries(Object.entries(fields).sort(([a], [b]) => a.localeCompare(b)));
    for (const ref of Object.values(fields)) {
      const named = ref.replace(/^\[\]/, '').replace(/^map\[(.*)\]$/, '$1');
      if (named !== 'leaf' && named !== 'raw' && !types[named]) pending.push(named);
    }
  }
  const sorted = Object.fromEntries(Object.entries(types).sort(([a], [b]) => a.localeCompare(b)));
  const text = `/**
 * Generated by hack/generate-gardener-fields.ts (\`npm run generate:gardener-fields\`); do not edit.
 * The JSON fields of Gardener's ${ROOTS.join(', ')} (${contract.gardener}, ${contract.coreDir}) and of
 * the Kubernetes types they embed (${contract.k8sApi}, ${contract.apimachinery}), by Go type: \`leaf\` a value,
 * \`raw\` an embedded object whose fields are someone else's, a type name, \`[]T\` a list of T,
 * \`map[T]\` a map of T.
 */
export const ${contract.constant}: Readonly<Record<string, Readonly<Record<string, string>>>> = ${JSON.stringify(sorted, null, 2)};
`;
  const target = join(import.meta.dirname, '..', 'api', 'schema', contract.file);
  writeFileSync(target, text);
  console.log(`wrote api/schema/${contract.file} (${Object.keys(sorted).length} types)`);
}

for (const contract of CONTRACTS) generate(contract);
