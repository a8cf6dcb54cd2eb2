/**
 * The npm package as a user gets it: `npm pack`, the tarball installed into an empty project, then
 * imported from plain Node (no TypeScript loader), a TypeScript consumer compiled against its
 * declarations, and both executables run from node_modules/.bin, every command of each. The
 * controller-manager against an API server: test/integration/npm-package.test.ts.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { VERSION } from '../../api/version.js';
import { oscV1, yamlOf } from '../../hack/landscape/ntv18-fixtures.js';
import { runCli } from '../node-agent/support/cli-run.js';
import { type InstalledPackage, installedPackage, runPlain as run } from '../support/installed-package.js';
import { admitsNodeVersion } from '../support/node-engines.js';
import { ROOT } from '../support/package-build.js';

/** The Node version package.json's engines field declares as the minimum. */
const MINIMUM_NODE = '20.19.0';

interface Installed {
  readonly path: string;
  readonly name: string;
  readonly engines?: { node?: string };
  readonly dependencies?: Record<string, string>;
}

function packageAt(dir: string): Installed | undefined {
  const file = join(dir, 'package.json');
  return existsSync(file) ? { path: dir, ...JSON.parse(readFileSync(file, 'utf8')) } : undefined;
}

/** Every package under a node_modules tree (nested node_modules included). */
function installedPackages(nodeModules: string): Installed[] {
  if (!existsSync(nodeModules)) return [];
  const dirs = readdirSync(nodeModules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) =>
      entry.startsWith('@')
        ? readdirSync(join(nodeModules, entry)).map((sub) => join(nodeModules, entry, sub))
        : [join(nodeModules, entry)],
    );
  return dirs.flatMap((dir) => {
    const pkg = packageAt(dir);
    return pkg ? [pkg, ...installedPackages(join(dir, 'node_modules'))] : [];
  });
}

/** The packages `names` are, from the repository's node_modules, and every package they depend on. */
function dependencyClosure(names: readonly string[]): Installed[] {
  const seen = new Map<string, Installed>();
  const resolveFrom = (from: string, name: string): Installed | undefined => {
    for (let dir = from; dir.startsWith(ROOT); dir = join(dir, '..')) {
      const found = packageAt(join(dir, 'node_modules', name));
      if (found) return found;
      if (dir === ROOT) break;
    }
    return undefined;
  };
  const visit = (pkg: Installed | undefined) => {
    if (!pkg || seen.has(pkg.path)) return;
    seen.set(pkg.path, pkg);
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(resolveFrom(pkg.path, dep));
  };
  for (const name of names) visit(resolveFrom(ROOT, name));
  return [...seen.values()];
}

/** The commands an executable's --help lists. */
function commandsOf(help: string): string[] {
  const section = help.split('Commands:\n')[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z-]+)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
}

describe('the npm package: packed, installed into an empty project, used from there', function () {
  this.timeout(300_000);
  let pkg: InstalledPackage;
  let project: string;
  let files: readonly string[];

  before(function () {
    this.timeout(600_000);
    pkg = installedPackage();
    project = pkg.project;
    files = pkg.files;
  });

  it('holds the compiled package, its declarations, both executables and no tests or sources', () => {
    expect(files).to.include.members([
      'package.json',
      'cli/bin.mjs',
      'node-agent/bin.mjs',
      'build/cli-bundle/main.js',
      'build/charts/index.js',
      'build/charts/index.d.ts',
      'build/api/index.d.ts',
      'build/node-agent/cli/program.js',
      'examples/cluster.yaml',
      'LICENSE',
      'charts/images.yaml',
    ]);
    const unexpected = files.filter(
      (f) => f.startsWith('test/') || f.startsWith('hack/') || (f.endsWith('.ts') && !f.endsWith('.d.ts')),
    );
    expect(unexpected).to.deep.equal([]);
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules/gardener-osc/package.json'), 'utf8'));
    expect(Object.keys(pkg.dependencies)).not.to.include('tsx');
  });

  it('imports from plain Node: render API, contract schemas, YAML codec, os-local user data; no deep imports', () => {
    const script = `
      import { readFileSync } from 'node:fs';
      import { renderNodeConfigurationYaml, RenderValuesSchema } from 'gardener-osc';
      import { decodeCluster, decodeOperatingSystemConfig, parseRfc3339 } from 'gardener-osc/api';
      import { parseYaml, stringifyYaml } from 'gardener-osc/yaml';
      import { renderUserData } from 'gardener-osc/os-local';
      const examples = new URL('./node_modules/gardener-osc/examples/', import.meta.url);
      const cluster = decodeCluster(parseYaml(readFileSync(new URL('cluster.yaml', examples), 'utf8')));
      const values = RenderValuesSchema.parse(parseYaml(readFileSync(new URL('values.yaml', examples), 'utf8')));
      const yaml = renderNodeConfigurationYaml({ cluster: cluster.value, values, useGardenerNodeAgent: true,
        legacyNodes: false, now: parseRfc3339('2024-01-01T00:00:00Z'), target: 'seed' });
      process.stdout.write(yaml);
      const decoded = decodeOperatingSystemConfig(yaml.split('---\\n').find((d) => d.includes('kind: OperatingSystemConfig')));
      if (!decoded.ok) throw new Error(JSON.stringify(decoded.errors));
      const userData = renderUserData(decoded.value, { resolveSecretRef: () => 'x' });
      process.stderr.write(userData.startsWith('#!/bin/bash') || userData.length > 100 ? 'user-data ok\\n' : 'user-data short\\n');
      process.stderr.write(stringifyYaml({ b: 1, a: [] }));
      try { await import('gardener-osc/build/api/index.js'); } catch (e) { process.stderr.write(e.code + '\\n'); }
    `;
    const r = run(process.execPath, ['--input-type=module', '-e', script], project);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stderr).to.equal('user-data ok\na: []\nb: 1\nERR_PACKAGE_PATH_NOT_EXPORTED\n');
    // the library renders exactly what the installed executable prints
    const cli = run(join(project, 'node_modules/.bin/gardener-osc'), ['render'], project);
    expect(cli.status, cli.stderr).to.equal(0);
    expect(r.stdout).to.equal(cli.stdout);
    expect(cli.stdout).to.contain('kind: OperatingSystemConfig');
  });

  it('compiles a TypeScript consumer against its declarations (types are checked, not any)', () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `import { renderNodeConfiguration, type NodeConfigurationInput } from 'gardener-osc';
import { type Cluster, decodeCluster, type OperatingSystemConfig, parseRfc3339 } from 'gardener-osc/api';
import { parseYaml, stringifyYaml } from 'gardener-osc/yaml';
import { renderUserData } from 'gardener-osc/os-local';

export function pools(text: string): string[] {
  const decoded = decodeCluster(parseYaml(text));
  if (!decoded.ok) return decoded.errors.map((e) => e.field);
  const cluster: Cluster = decoded.value;
  const input: NodeConfigurationInput = {
    cluster, values: {}, useGardenerNodeAgent: true, legacyNodes: false, now: parseRfc3339('2024-01-01T00:00:00Z'),
  };
  const oscs = renderNodeConfiguration(input).seed.filter((o) => o.kind === 'OperatingSystemConfig');
  return oscs.map((o) => stringifyYaml(o));
}
export const userData = (osc: OperatingSystemConfig): string => renderUserData(osc);
// @ts-expect-error a Cluster is not a string
export const wrong: Cluster = 'cluster';
// @ts-expect-error renderNodeConfiguration needs its input
renderNodeConfiguration({});
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const r = run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    expect(r.status, r.stdout + r.stderr).to.equal(0);
  });

  it('runs both executables from node_modules/.bin: the same output as the sources', async () => {
    const bin = pkg.bin;
    for (const name of ['gardener-osc', 'gardener-node-agent'] as const) {
      const r = run(bin(name), ['--version'], project);
      expect(r.status, r.stderr).to.equal(0);
      expect(r.stdout).to.equal(`${VERSION}\n`);
    }
    const osc = join(project, 'osc.yaml');
    writeFileSync(osc, yamlOf(oscV1()));
    const plan = run(bin('gardener-node-agent'), ['plan', '--next', osc], project);
    expect(plan.status, plan.stderr).to.equal(0);
    expect(plan.stdout).to.equal((await runCli(['plan', '--next', osc])).stdout);
    expect(plan.stdout.length).to.be.greaterThan(100);
    const bad = run(bin('gardener-osc'), ['render', '--target', 'moon'], project);
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.contain("'moon' is invalid");
  });

  it('runs every command of both executables from the installed package (each loads its modules)', () => {
    for (const name of ['gardener-osc', 'gardener-node-agent'] as const) {
      const commands = commandsOf(run(pkg.bin(name), ['--help'], project).stdout);
      expect(commands.length, name).to.be.greaterThan(3);
      for (const command of commands) {
        const r = run(pkg.bin(name), [command, '--help'], project);
        expect(r.status, `${name} ${command} --help: ${r.stderr}`).to.equal(0);
        expect(r.stdout, `${name} ${command}`).to.contain(`Usage: ${name} ${command}`);
      }
    }
    const examples = join(project, 'node_modules/gardener-osc/examples');
    for (const args of [
      ['crds'],
      ['delays', '--nodes', '-'],
      ['plan', '--cluster', join(examples, 'cluster.yaml'), '--next', join(examples, 'cluster.yaml')],
      ['controller-manager', '--config', join(examples, 'controller-manager.yaml'), '--check-config'],
      ['manifests', '--config', join(examples, 'controller-manager.yaml')],
      ['manifests', '--config', join(examples, 'controller-manager.yaml'), '--shoot-role'],
      ['completion', 'bash'],
    ]) {
      const input = args[0] === 'delays' ? 'apiVersion: v1\nkind: List\nitems: []\n' : undefined;
      const r = run(pkg.bin('gardener-osc'), args, project, input);
      expect(r.status, `gardener-osc ${args.join(' ')}: ${r.stderr}`).to.equal(0);
      expect(r.stdout.length, `gardener-osc ${args.join(' ')}`).to.be.greaterThan(0);
    }
  });

  it(`installs only packages whose engines admit Node ${MINIMUM_NODE}, the package's own minimum`, () => {
    const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(own.engines.node).to.equal(`>=${MINIMUM_NODE}`);
    // the range reader on the ranges that matter here: undici 8's refuses, the others admit
    expect(
      ['>=22.19.0', '^20.19.0 || >=22.12.0', '18 || 20 || >=22', '>= 20', '^16 || ^18', '~20.18'].map((r) =>
        admitsNodeVersion(r, MINIMUM_NODE),
      ),
    ).to.deep.equal([false, true, true, true, false, false]);
    const tree = installedPackages(join(project, 'node_modules'));
    expect(tree.map((p) => p.name)).to.include.members(['gardener-osc', 'zod', 'cdk8s']);
    const refusing = tree
      .filter((p) => p.engines?.node && !admitsNodeVersion(p.engines.node, MINIMUM_NODE))
      .map((p) => `${p.path}: engines.node ${p.engines?.node}`);
    expect(refusing).to.deep.equal([]);
  });

  it('holds @kubernetes/client-node and undici in the CLI bundle: the versions the repository tests, whatever the consumer resolves', () => {
    // client-node 2.0.1 asks for undici ^8.7.0 (Node >= 22.19): installed as dependencies, a
    // consumer's npm would resolve that, as the repository's overrides do not reach it
    const tree = installedPackages(join(project, 'node_modules')).map((p) => p.name);
    expect(tree).not.to.include('@kubernetes/client-node');
    expect(tree).not.to.include('undici');
    const inlined = dependencyClosure(['@kubernetes/client-node', 'undici']);
    expect(inlined.map((p) => p.name)).to.include.members(['@kubernetes/client-node', 'undici', 'ws']);
    const refusing = inlined
      .filter((p) => p.engines?.node && !admitsNodeVersion(p.engines.node, MINIMUM_NODE))
      .map((p) => `${p.name}: engines.node ${p.engines?.node}`);
    expect(refusing).to.deep.equal([]);
  });
});
