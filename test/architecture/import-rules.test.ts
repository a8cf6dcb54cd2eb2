/**
 * The layering of docs/architecture.md, enforced: api <- runtime <- node-agent; api <- components <-
 * charts <- seed <- controllers <- cli (seed and controllers may also use runtime). Inside a top
 * folder the same holds for its sub-folders: each has a level, and a sub-folder imports only
 * sub-folders of lower levels (siblings on one level not at all), so what several controllers
 * share lives below them, never in a sibling. The node agent never imports seed code, so it
 * bundles small; node-agent/ and what it imports stay CommonJS-bundle safe (no top-level await,
 * no import.meta), because Node 20 single executables run only CommonJS.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';

const ROOT = resolve(import.meta.dirname, '../..');

const ALLOWED: Record<string, readonly string[]> = {
  api: [],
  runtime: ['api'],
  'node-agent': ['api', 'runtime'],
  components: ['api'],
  charts: ['api', 'components'],
  seed: ['api', 'runtime', 'components', 'charts'],
  controllers: ['api', 'runtime', 'components', 'charts', 'seed'],
  cli: ['api', 'runtime', 'components', 'charts', 'seed', 'controllers'],
};

/**
 * The sub-folders of each top folder by level, lowest first. A sub-folder imports only lower
 * levels; files directly in the top folder are its own modules and may import any sub-folder.
 * A sub-folder missing here fails the test: give it a level.
 */
const LEVELS: Record<string, readonly (readonly string[])[]> = {
  api: [['validation', 'well-known', 'yaml', 'toml'], ['schema', 'scripts'], ['objects']],
  runtime: [['kube', 'cli', 'pki']],
  'node-agent': [
    ['process', 'fs'],
    ['systemd', 'registry', 'planner'],
    // containerd's configuration and the in-place refusal, which the applier runs
    ['containerd', 'inplace'],
    ['applier'],
    ['bootstrap', 'identity', 'plan-view'],
    ['controllers'],
    ['agent'],
    ['cli'],
  ],
  components: [
    // the kubelet and containerd restart on a change of the local root certificates (v1.150.0)
    ['root-certificates'],
    [
      'containerd',
      'containerd-initializer',
      'downloader',
      'executor',
      'gardener-user',
      'journald',
      'kernel-config',
      'kubelet',
      'node-agent',
      'opentelemetry-collector',
      'os-local',
      'sshd-ensurer',
      'valitail',
      'var-lib-kubelet-mount',
    ],
    ['node-init'],
    ['original'],
  ],
  charts: [['values'], ['operating-system-config', 'managed-resource', 'controller-manager']],
  seed: [
    ['kube', 'shoot-secrets', 'migration-state', 'shoot-nodes', 'node-identity'],
    ['direct-apply'],
    ['manager'],
  ],
  controllers: [
    [
      'migration',
      'node-agent-authorizer',
      'node-agent-csr-approver',
      'node-delay',
      'operatingsystemconfig',
      'os-local',
      'rollout',
      'token-labels',
      'token-requestor',
    ],
  ],
  cli: [['plan']],
};

const BUNDLE_SAFE = ['api', 'runtime', 'node-agent'];

/**
 * `gardener-osc plan` shows what the node agent would do with the agent's own planner, so the fleet
 * plan and the node plan cannot disagree. `cli` may import these node-agent modules and no other;
 * they import nothing but `api/` and each other, and no `node:` module (no I/O), so the seed side
 * gains the agent's decisions and none of its machinery.
 */
const NODE_AGENT_PURE = [
  'node-agent/planner/',
  'node-agent/plan-view/',
  'node-agent/applier/file-content.ts',
];

const isPureNodeAgent = (file: string) => NODE_AGENT_PURE.some((p) => relative(ROOT, file).startsWith(p));

function sourceFiles(dir: string, extensions: readonly string[] = ['.ts']): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path, extensions);
    return extensions.some((e) => path.endsWith(e)) ? [path] : [];
  });
}

/**
 * Tooling and tests: test/ may import hack/ (it tests the tools, and shares their landscape in
 * hack/landscape/), hack/ never imports test/, so a tool runs from a checkout without its tests.
 */
function hackImportsOfTest(file: string, specs: readonly string[]): string[] {
  return specs
    .filter((spec) => spec.startsWith('.') && layerOf(resolve(dirname(file), spec)) === 'test')
    .map((spec) => `${relative(ROOT, file)} imports ${spec}`);
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((m) => m[1] ?? m[2]!).filter(Boolean);
}

/** Whether `source` imports a value (not only types) from `pkg`: `import type` and inline `type` names are erased. */
function valueImportsOf(source: string, pkg: string): boolean {
  const escaped = pkg.replace(/[/.]/g, '\\$&');
  const pattern = new RegExp(`(?:^|\\n)\\s*(import|export)\\s([^;]*?)from\\s*['"]${escaped}['"]`, 'g');
  for (const [, , clause = ''] of source.matchAll(pattern)) {
    if (/^type\s/.test(clause.trim())) continue;
    const names = /\{([^}]*)\}/.exec(clause)?.[1];
    if (names === undefined) return true; // default or namespace import
    if (names.split(',').some((n) => n.trim() !== '' && !/^type\s/.test(n.trim()))) return true;
  }
  return false;
}

function layerOf(file: string): string | undefined {
  return relative(ROOT, file).split('/')[0];
}

/** The sub-folder of its top folder a file is in; undefined for files directly in the top folder. */
function subFolderOf(file: string): string | undefined {
  const parts = relative(ROOT, file).split('/');
  return parts.length > 2 ? parts[1] : undefined;
}

function levelOf(layer: string, sub: string): number {
  return (LEVELS[layer] ?? []).findIndex((level) => level.includes(sub));
}

/** Upward or sideways imports between sub-folders of one top folder. */
function subFolderViolations(file: string, specs: readonly string[]): string[] {
  const layer = layerOf(file)!;
  const sub = subFolderOf(file);
  if (sub === undefined) return [];
  const out: string[] = [];
  for (const spec of specs) {
    if (!spec.startsWith('.')) continue;
    const target = resolve(dirname(file), spec);
    const targetSub = subFolderOf(target);
    if (layerOf(target) !== layer || targetSub === undefined || targetSub === sub) continue;
    if (levelOf(layer, sub) <= levelOf(layer, targetSub))
      out.push(`${relative(ROOT, file)} imports ${spec} (${layer}: ${sub} -> ${targetSub})`);
  }
  return out;
}

describe('architecture', () => {
  const files = Object.keys(ALLOWED).flatMap((layer) => sourceFiles(join(ROOT, layer)));

  it('finds the layers it checks', () => {
    expect(files.some((f) => layerOf(f) === 'api')).to.equal(true);
  });

  it('imports only across the boundaries docs/architecture.md allows', () => {
    const violations: string[] = [];
    for (const file of files) {
      const layer = layerOf(file)!;
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const target = layerOf(resolve(dirname(file), spec));
        if (target === undefined || target === layer) continue;
        if (layer === 'cli' && isPureNodeAgent(resolve(dirname(file), spec))) continue;
        if (!ALLOWED[layer]!.includes(target))
          violations.push(`${relative(ROOT, file)} imports ${spec} (${layer} -> ${target})`);
      }
    }
    expect(violations).to.deep.equal([]);
  });

  it('the node-agent modules the cli may use are pure: they import only api/ and each other', () => {
    const pure = files.filter(isPureNodeAgent);
    expect(pure.map((f) => relative(ROOT, f))).to.include.members([
      'node-agent/planner/compute-plan.ts',
      'node-agent/plan-view/pool-view.ts',
    ]);
    const violations: string[] = [];
    for (const file of pure) {
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) {
          if (spec.startsWith('node:')) violations.push(`${relative(ROOT, file)} imports ${spec}`);
          continue;
        }
        const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
        if (layerOf(target) !== 'api' && !isPureNodeAgent(target))
          violations.push(`${relative(ROOT, file)} imports ${spec}`);
      }
    }
    expect(violations).to.deep.equal([]);
    expect(isPureNodeAgent(join(ROOT, 'node-agent/applier/apply-osc.ts'))).to.equal(false);
  });

  it('gives every sub-folder a level', () => {
    const missing = new Set<string>();
    for (const file of files) {
      const sub = subFolderOf(file);
      if (sub !== undefined && levelOf(layerOf(file)!, sub) < 0) missing.add(`${layerOf(file)}/${sub}`);
    }
    expect([...missing]).to.deep.equal([]);
  });

  it('imports no sub-folder of its own top folder at its level or above', () => {
    const violations = files.flatMap((file) =>
      subFolderViolations(file, importsOf(readFileSync(file, 'utf8'))),
    );
    expect(violations).to.deep.equal([]);
  });

  it('keeps the node agent and what it imports free of top-level await and import.meta', () => {
    const violations: string[] = [];
    for (const file of files.filter((f) => BUNDLE_SAFE.includes(layerOf(f)!))) {
      const source = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      if (source.includes('import.meta')) violations.push(`${relative(ROOT, file)} uses import.meta`);
      if (/^await\s|^(const|let|var)\s[^=]+=\s*await\s/m.test(source))
        violations.push(`${relative(ROOT, file)} uses top-level await`);
    }
    expect(violations).to.deep.equal([]);
  });

  it('the node agent and the runtime take only types from @kubernetes/client-node (its models cost ~38 MiB of RSS)', () => {
    const violations = files
      .filter((f) => layerOf(f) === 'node-agent' || layerOf(f) === 'runtime')
      .filter((f) => valueImportsOf(readFileSync(f, 'utf8'), '@kubernetes/client-node'))
      .map((f) => relative(ROOT, f));
    expect(violations).to.deep.equal([]);
    expect(
      valueImportsOf("import { type A, B } from '@kubernetes/client-node';", '@kubernetes/client-node'),
    ).to.equal(true);
    expect(
      valueImportsOf("import type { A, B } from '@kubernetes/client-node';", '@kubernetes/client-node'),
    ).to.equal(false);
  });

  it('hack/ imports nothing from test/ (test/ may import hack/)', () => {
    const hack = sourceFiles(join(ROOT, 'hack'), ['.ts', '.mts', '.mjs']);
    expect(hack.map((f) => relative(ROOT, f))).to.include('hack/landscape/envtest.ts');
    const violations = hack.flatMap((file) => hackImportsOfTest(file, importsOf(readFileSync(file, 'utf8'))));
    expect(violations).to.deep.equal([]);
  });

  it('detects a violation (the check can fail)', () => {
    expect(
      importsOf("import { x } from '../components/kubelet.js';\nconst y = await import('../charts/a.js');"),
    ).to.deep.equal(['../components/kubelet.js', '../charts/a.js']);
    expect(ALLOWED.api).to.deep.equal([]);
    expect(ALLOWED['node-agent']).not.to.include('components');
    const controller = join(ROOT, 'controllers/migration/reconciler.ts');
    expect(subFolderViolations(controller, ['../operatingsystemconfig/reconciler.js'])).to.have.length(1);
    expect(subFolderViolations(controller, ['../../seed/manager/config.js', './state.js'])).to.deep.equal([]);
    expect(subFolderViolations(join(ROOT, 'seed/kube/a.ts'), ['../manager/config.js'])).to.have.length(1);
    const bench = join(ROOT, 'hack/bench/a.ts');
    expect(hackImportsOfTest(bench, ['../../test/support/eventually.js'])).to.have.length(1);
    expect(hackImportsOfTest(bench, ['../landscape/envtest.js', '../../api/index.js'])).to.deep.equal([]);
  });
});
