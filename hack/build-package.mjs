#!/usr/bin/env node
/**
 * `npm run build`: compiles the package's sources (api, runtime, components, charts, controllers,
 * cli, node-agent) with tsc into build/ (JavaScript, .d.ts, source maps), which the `exports` map
 * and `gardener-node-agent` use, and bundles the `gardener-osc` CLI into build/cli-bundle/ (see
 * bundleCli). npm runs it on `npm ci` and `npm pack` (prepare), `npm start` and
 * `npm test` (prestart, through the test prerequisites).
 *
 * Skipped when nothing it reads changed since the last build (a hash of the sources, the tsconfigs,
 * the lockfile and the TypeScript version in build/.source-hash), so it costs ~50 ms then; outputs
 * of deleted sources are removed. Plain JavaScript, so it starts without a TypeScript loader.
 * Progress goes to stderr; with `--print-dir` (as a build of hack/prepare) the build directory is
 * printed on stdout.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'build');
const STAMP = join(OUT, '.source-hash');
/** The folders tsconfig.build.json compiles. */
export const SOURCE_DIRS = ['api', 'runtime', 'components', 'charts', 'controllers', 'cli', 'node-agent'];

function filesUnder(dir, keep) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

const isSource = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts');

function sourceHash() {
  const require = createRequire(join(ROOT, 'package.json'));
  const hash = createHash('sha256');
  hash.update(`typescript ${require('typescript/package.json').version}\n`);
  const files = [
    ...SOURCE_DIRS.flatMap((d) => filesUnder(join(ROOT, d), isSource)),
    join(ROOT, 'tsconfig.json'),
    join(ROOT, 'tsconfig.build.json'),
    join(ROOT, 'package-lock.json'),
    join(ROOT, 'package.json'),
    import.meta.filename,
  ].sort();
  for (const file of files)
    hash
      .update(`${relative(ROOT, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  return hash.digest('hex');
}

/** build/x/y.js, .d.ts and their maps whose x/y.ts is gone. */
function removeOrphans() {
  const outputs = SOURCE_DIRS.flatMap((d) =>
    filesUnder(join(OUT, d), (name) => /\.(js|d\.ts)(\.map)?$/.test(name)),
  );
  for (const output of outputs) {
    const source = join(ROOT, relative(OUT, output)).replace(/\.(js|d\.ts)(\.map)?$/, '.ts');
    if (!existsSync(source)) rmSync(output);
  }
}

/** Where `gardener-osc` (cli/bin.mjs) runs from: an ES module bundle, one chunk per lazily loaded command. */
export const CLI_BUNDLE = join(OUT, 'cli-bundle');

/**
 * The packages the CLI bundle holds rather than requires: @kubernetes/client-node and the undici
 * this repository pins for it. client-node 2.0.1 asks for undici ^8.7.0, which needs Node >= 22.19;
 * the repository's `overrides` hold undici at 7.x (Node >= 20.18.1), but overrides do not reach a
 * consumer's install, whose npm would give client-node undici 8 and break the controller-manager on
 * Node 20 (the package's minimum). Inlined, the tested versions are the ones that run; both are
 * devDependencies, so a consumer installs neither. Everything else the CLI imports stays an
 * ordinary dependency, shared with the library exports.
 */
export const CLI_INLINED_PACKAGES = ['@kubernetes/client-node', 'undici'];

function bundleCli() {
  const require = createRequire(join(ROOT, 'package.json'));
  const esbuild = require('esbuild');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const external = Object.keys(pkg.dependencies ?? {}).flatMap((name) => [name, `${name}/*`]);
  rmSync(CLI_BUNDLE, { recursive: true, force: true });
  const result = esbuild.buildSync({
    entryPoints: { main: join(ROOT, 'cli/main.ts') },
    outdir: CLI_BUNDLE,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external,
    // CommonJS modules inside the bundle (undici, client-node's dependencies) call require() for
    // built-in modules, which an ES module has not: esbuild's shim uses this one
    banner: {
      js: "import { createRequire as __cliCreateRequire } from 'node:module';\nconst require = __cliCreateRequire(import.meta.url);",
    },
    legalComments: 'eof',
    logLevel: 'silent',
  });
  for (const w of result.warnings) process.stderr.write(`esbuild: ${w.text}\n`);
}

export function buildPackage({ log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  const hash = sourceHash();
  if (
    existsSync(STAMP) &&
    readFileSync(STAMP, 'utf8').trim() === hash &&
    existsSync(join(CLI_BUNDLE, 'main.js'))
  )
    return OUT;
  const started = Date.now();
  log('build: compiling the package into build/ (tsc -p tsconfig.build.json) ...');
  rmSync(STAMP, { force: true });
  const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  removeOrphans();
  bundleCli();
  writeFileSync(STAMP, `${hash}\n`);
  log(`build: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return OUT;
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  try {
    const out = buildPackage();
    if (process.argv.includes('--print-dir')) process.stdout.write(`${out}\n`);
  } catch (e) {
    process.stderr.write(`build: ${e.message}\n`);
    process.exitCode = 1;
  }
}
