/**
 * The npm package as a user gets it: `npm pack`, the tarball installed into an empty project, then
 * imported from plain Node (no TypeScript loader), a TypeScript consumer compiled against its
 * declarations, and both executables run from node_modules/.bin.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { VERSION } from '../../api/version.js';
import { runCli } from '../node-agent/support/cli-run.js';
import { oscV1, yamlOf } from '../node-agent/support/ntv18-fixtures.js';
import { ROOT } from '../support/package-build.js';

/** The environment of a user's shell: no TypeScript loader from this test run. */
const plainEnv = () => {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' };
  delete env.NODE_OPTIONS;
  return env;
};

function run(file: string, args: string[], cwd: string, input?: string) {
  const r = spawnSync(file, args, { cwd, env: plainEnv(), encoding: 'utf8', input, maxBuffer: 1 << 26 });
  if (r.error) throw r.error;
  return r;
}

describe('the npm package: packed, installed into an empty project, used from there', function () {
  this.timeout(300_000);
  let dir: string;
  let project: string;
  let files: string[];

  before(function () {
    this.timeout(600_000);
    dir = mkdtempSync(join(tmpdir(), 'osc-npm-package-'));
    // npm pack runs `prepare`, which compiles build/ when the sources changed
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
        cwd: ROOT,
        env: plainEnv(),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    ) as [{ filename: string; files: { path: string }[] }];
    files = packed[0].files.map((f) => f.path);
    project = join(dir, 'consumer');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    // from the npm cache that `npm ci` filled: no registry needed
    execFileSync(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        join(dir, packed[0].filename),
      ],
      { cwd: project, env: plainEnv(), stdio: ['ignore', 'ignore', 'inherit'] },
    );
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('holds the compiled package, its declarations, both executables and no tests or sources', () => {
    expect(files).to.include.members([
      'package.json',
      'cli/bin.mjs',
      'node-agent/bin.mjs',
      'build/cli/main.js',
      'build/charts/index.js',
      'build/charts/index.d.ts',
      'build/api/index.d.ts',
      'build/node-agent/cli/program.js',
      'examples/cluster.yaml',
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
    const bin = (name: string) => join(project, 'node_modules/.bin', name);
    for (const name of ['gardener-osc', 'gardener-node-agent']) {
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
});
