/**
 * Builds a Node 20 single executable application from one entry (the node agent, and `gardener-osc`
 * for the controller-manager image): esbuild bundles the entry and everything it imports into one
 * CommonJS file (an SEA's main must be CommonJS and may require only built-in modules), Node turns
 * it into a preparation blob (`--experimental-sea-config`), and postject injects the blob into a
 * copy of the official Node.js binary for the target architecture (`--arch`: amd64 or arm64, the
 * pinned npm package `node-linux-<arch>`, hack/image-runtime.ts). The result runs without Node or
 * node_modules on the machine. The blob holds the bundle's JavaScript only (`useCodeCache` and
 * `useSnapshot` false), which does not depend on the architecture, so the build machine's pinned
 * Node makes it for both. Node's SEA documentation
 * (https://nodejs.org/docs/latest-v20.x/api/single-executable-applications.html, "Generating
 * single executable preparation blobs") says the Node that makes the blob must be the version it
 * is injected into (both are NODE_DIST_VERSION), and that a cross-platform SEA must leave code
 * cache and snapshot off: they load only on the platform that compiled them (nodejs/node#53994).
 *
 * Builds are cached by a hash of every input (the sources, the lockfile, this script, the Node,
 * esbuild and postject versions) under `$XDG_CACHE_HOME/gardener-osc/<cacheName>/`, so a second
 * build of the same sources only copies the result.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import type { Plugin } from 'esbuild';
import { readElf } from './elf.js';
import {
  ARCHES,
  defaultCacheDir,
  hostArch,
  type ImageArch,
  NODE_DIST_VERSION,
  nodeBinary,
} from './image-runtime.js';

export { defaultCacheDir } from './image-runtime.js';

const ROOT = resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);

/** What one executable is made of. */
export interface ExecutableSpec {
  /** The file name of the executable (and of its bundle, `<name>.cjs`). */
  readonly name: string;
  readonly entry: string;
  /** Folders whose files end up in the bundle (the cache key). */
  readonly sourceDirs: readonly string[];
  /** The cache folder under `$XDG_CACHE_HOME/gardener-osc/`. */
  readonly cacheName: string;
}

/** The fuse every Node ≥ 18.16 binary carries; postject flips it when it injects the blob. */
export const SEA_SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
export const SEA_RESOURCE_NAME = 'NODE_SEA_BLOB';
/** The devDependency the build needs (reported in the error when it is missing). */
export const POSTJECT_VERSION = '1.0.0-alpha.6';

export interface BuildOptions {
  /** The architecture the executable runs on; default the build machine's. */
  readonly arch?: ImageArch;
  /** Where the binary and the bundle are written; default `dist/`. */
  readonly outDir?: string;
  /** The cache's root; default `$XDG_CACHE_HOME/gardener-osc` (or ~/.cache/gardener-osc); null: no cache. */
  readonly cacheDir?: string | null;
  readonly log?: (line: string) => void;
}

export interface BuildResult {
  readonly binary: string;
  readonly bundle: string;
  readonly hash: string;
  readonly cached: boolean;
}

export interface Postject {
  inject(file: string, name: string, data: Buffer, options: { sentinelFuse: string }): Promise<void>;
}

/**
 * postject's Emscripten runtime adds process-wide `uncaughtException` and `unhandledRejection`
 * handlers that rethrow (postject 1.0.0-alpha.6 `dist/api.js`), so any later stray rejection in
 * the process that built an executable (a test run, the demo) kills it. Remove what it added.
 */
function processErrorHandlers(): { restore(): void } {
  const listeners = (event: string) => process.listeners(event as 'uncaughtException');
  const events = ['uncaughtException', 'unhandledRejection'];
  const before = new Map(events.map((event) => [event, new Set<unknown>(listeners(event))]));
  return {
    restore() {
      for (const event of events) {
        for (const listener of listeners(event)) {
          if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
        }
      }
    },
  };
}

/**
 * Injects the preparation blob into a copy of Node's binary. Leaves the process as it found it:
 * console.warn and the process-wide error handlers postject's runtime adds.
 */
export async function injectBlob(postject: Postject, binary: string, blob: Buffer): Promise<void> {
  // LIEF (inside postject) warns about every note section of Node's ELF binary: known and harmless.
  // Other warnings get through.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!/Can't find string offset for section name/.test(String(args[0]))) warn(...args);
  };
  const keepHandlers = processErrorHandlers();
  try {
    await postject.inject(binary, SEA_RESOURCE_NAME, blob, { sentinelFuse: SEA_SENTINEL_FUSE });
  } finally {
    console.warn = warn;
    keepHandlers.restore();
  }
}

/** postject from the project's node_modules, or from $GNA_POSTJECT_MODULE (a path to the package). */
export function loadPostject(): { module: Postject; version: string } {
  const candidates = [process.env.GNA_POSTJECT_MODULE, 'postject'].filter((c): c is string => !!c);
  for (const candidate of candidates) {
    try {
      const keepHandlers = processErrorHandlers();
      const module = require(candidate) as Postject;
      keepHandlers.restore();
      const version = (require(join(candidate, 'package.json')) as { version: string }).version;
      return { module, version };
    } catch {
      // Next candidate.
    }
  }
  throw new Error(
    `postject is not installed: add the devDependency "postject": "${POSTJECT_VERSION}" (or set GNA_POSTJECT_MODULE to its package directory)`,
  );
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** The hash of everything the binary is made of. */
export function sourceHash(
  spec: ExecutableSpec,
  postjectVersion: string,
  arch: ImageArch = hostArch(),
): string {
  const hash = createHash('sha256');
  const esbuildVersion = (require('esbuild/package.json') as { version: string }).version;
  // The pinned Node of the target (the executable's base) and of the build machine (makes the blob).
  for (const a of new Set([arch, hostArch()]))
    hash.update(`${ARCHES[a].nodePackage}@${NODE_DIST_VERSION} ${ARCHES[a].integrity}\n`);
  hash.update(`target ${arch}\n`);
  hash.update(`esbuild ${esbuildVersion}\npostject ${postjectVersion}\n`);
  // the bundle names every module by its path from the root: a checkout whose node_modules links
  // to another checkout's bundles other bytes (`../main/node_modules/…`) than one with its own
  hash.update(`node_modules ${relative(ROOT, realpathSync(join(ROOT, 'node_modules')))}\n`);
  const files = [
    ...spec.sourceDirs.flatMap((d) => filesUnder(join(ROOT, d))),
    join(ROOT, 'package-lock.json'),
    join(ROOT, 'tsconfig.json'),
    import.meta.filename,
  ].sort();
  for (const file of files) {
    hash.update(`${relative(ROOT, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * Optional native add-ons that libraries try to load and do without (ws, under
 * @kubernetes/client-node, tries bufferutil and utf-8-validate in a try/catch). An SEA can load no
 * module from disk, and merely trying prints a warning on every start, so in the bundle each of
 * them is a module that throws MODULE_NOT_FOUND: the library takes its pure-JS path, silently.
 */
export const OPTIONAL_NATIVE_MODULES = ['bufferutil', 'utf-8-validate'];

const optionalNativeModules: Plugin = {
  name: 'optional-native-modules',
  setup(build) {
    const filter = new RegExp(`^(${OPTIONAL_NATIVE_MODULES.join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'optional-native' }));
    build.onLoad({ filter: /.*/, namespace: 'optional-native' }, (args) => ({
      contents: `const e = new Error(${JSON.stringify(`Cannot find module '${args.path}' (not part of the single executable)`)}); e.code = 'MODULE_NOT_FOUND'; throw e;`,
    }));
  },
};

/** The npm packages a bundle holds, with how many bytes of output each contributes. */
export type BundledPackages = ReadonlyMap<string, number>;

function bundledPackages(metafile: import('esbuild').Metafile): BundledPackages {
  const bytes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
      if (name) bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
    }
  }
  return bytes;
}

/** Bundles the entry into one CommonJS file that requires built-in modules only. */
export async function bundleExecutable(spec: ExecutableSpec, outfile: string): Promise<BundledPackages> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [spec.entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Nothing is external: an SEA can require built-in modules only (see optionalNativeModules).
    // Lazy requires of built-ins newer than Node 20 (undici's `node:sqlite` cache store) stay as
    // they are; the agent never reaches them.
    plugins: [optionalNativeModules],
    // a CommonJS bundle has no import.meta; code that uses it falls back when these are undefined
    define: { 'import.meta.dirname': 'undefined', 'import.meta.filename': 'undefined' },
    legalComments: 'eof',
    // V8 keeps the script's source for the life of the process (lazy compilation compiles from it),
    // as a one-byte string only if every character is Latin-1: one em dash in a library's comment
    // (zod 4's checks.js) made the agent's 1.4 MB source a 2.9 MB two-byte string. Without
    // whitespace and comments (identifiers stay as they are) the source is ASCII and ~0.95 MB.
    minifyWhitespace: true,
    charset: 'ascii',
    logLevel: 'silent',
    metafile: true,
  });
  for (const w of result.warnings) process.stderr.write(`esbuild: ${w.text}\n`);
  const nonAscii = firstNonAscii(readFileSync(outfile));
  if (nonAscii !== undefined)
    throw new Error(
      `${outfile} is not ASCII at byte ${nonAscii}: V8 would hold its source at two bytes a character`,
    );
  return bundledPackages(result.metafile);
}

/** The offset of the first byte outside ASCII, if any. */
export function firstNonAscii(bytes: Uint8Array): number | undefined {
  const i = bytes.findIndex((b) => b > 0x7f);
  return i < 0 ? undefined : i;
}

function run(file: string, args: string[], cwd?: string): string {
  return execFileSync(file, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Bundle → SEA blob → node copy with the blob injected, all in `work`. */
async function buildInto(
  spec: ExecutableSpec,
  work: string,
  postject: Postject,
  arch: ImageArch,
  cacheDir: string | undefined,
  log: (line: string) => void,
): Promise<void> {
  const bundle = join(work, `${spec.name}.cjs`);
  const blob = join(work, 'sea-prep.blob');
  const binary = join(work, spec.name);
  await bundleExecutable(spec, bundle);
  const seaConfig = join(work, 'sea-config.json');
  // paths relative to the (temporary, randomly named) work dir: the blob records the main script's
  // path as given, and a build must not depend on where it ran
  writeFileSync(
    seaConfig,
    JSON.stringify(
      {
        main: basename(bundle),
        output: basename(blob),
        disableExperimentalSEAWarning: true,
        // Off, so one blob serves every architecture (see the top of this file).
        useCodeCache: false,
        useSnapshot: false,
      },
      null,
      2,
    ),
  );
  run(nodeBinary(hostArch(), { cacheDir, log }), ['--experimental-sea-config', basename(seaConfig)], work);
  copyFileSync(nodeBinary(arch, { cacheDir, log }), binary);
  chmodSync(binary, 0o755);
  await injectBlob(postject, binary, readFileSync(blob));
  if (arch === hostArch()) {
    // A binary that does not start is not a build.
    const version = run(binary, ['--version']).trim();
    if (!/^\d+\.\d+\.\d+/.test(version))
      throw new Error(`the built binary printed ${JSON.stringify(version)} for --version`);
  } else if (readElf(readFileSync(binary)).machine !== ARCHES[arch].elfMachine) {
    // One this machine cannot run is at least an ELF file for its architecture.
    throw new Error(`the built binary is not an ${arch} ELF executable`);
  }
  rmSync(blob);
  rmSync(seaConfig);
}

export async function buildExecutable(
  spec: ExecutableSpec,
  options: BuildOptions = {},
): Promise<BuildResult> {
  const BINARY_NAME = spec.name;
  const log = options.log ?? (() => undefined);
  const arch = options.arch ?? hostArch();
  // Another architecture's executable goes next to the build machine's, not over it.
  const outDir = options.outDir ?? (arch === hostArch() ? join(ROOT, 'dist') : join(ROOT, 'dist', arch));
  const postject = loadPostject();
  const hash = sourceHash(spec, postject.version, arch);
  const cacheRoot = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir;
  const cached = cacheRoot === null ? undefined : join(cacheRoot, spec.cacheName, hash);

  let from: string;
  let hit = false;
  if (cached && existsSync(join(cached, BINARY_NAME))) {
    log(`using the cached build ${cached}`);
    from = cached;
    hit = true;
  } else {
    const work = mkdtempSync(join(tmpdir(), 'gna-build-'));
    try {
      log(`building ${BINARY_NAME} for ${arch} (sources ${hash.slice(0, 12)})`);
      await buildInto(spec, work, postject.module, arch, cacheRoot ?? undefined, log);
    } catch (e) {
      rmSync(work, { recursive: true, force: true });
      throw e;
    }
    if (cached) {
      // Renamed into place whole, so a concurrent build never sees half a cache entry.
      mkdirSync(join(cacheRoot!, spec.cacheName), { recursive: true });
      const staging = `${cached}.${process.pid}.tmp`;
      rmSync(staging, { recursive: true, force: true });
      copyDir(work, staging);
      try {
        renameSync(staging, cached);
      } catch {
        rmSync(staging, { recursive: true, force: true }); // Someone else finished first.
      }
      pruneCache(join(cacheRoot!, spec.cacheName), cached);
    }
    from = work;
  }

  mkdirSync(outDir, { recursive: true });
  const binary = join(outDir, BINARY_NAME);
  const bundle = join(outDir, `${BINARY_NAME}.cjs`);
  for (const [src, dst] of [
    [join(from, BINARY_NAME), binary],
    [join(from, `${BINARY_NAME}.cjs`), bundle],
  ] as const) {
    rmSync(dst, { force: true });
    copyFileSync(src, dst);
  }
  chmodSync(binary, 0o755);
  if (!hit) rmSync(from, { recursive: true, force: true });
  log(`wrote ${relative(process.cwd(), binary) || binary} (${Math.round(statSync(binary).size / 1e6)} MB)`);
  return { binary, bundle, hash, cached: hit };
}

/** Each entry is ~100 MB and every source change makes one: keep the newest few. */
export const CACHE_ENTRIES_KEPT = 3;

function pruneCache(dir: string, keep: string): void {
  const entries = readdirSync(dir)
    .filter((name) => /^[0-9a-f]{64}$/.test(name))
    .map((name) => ({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { path } of entries.slice(CACHE_ENTRIES_KEPT)) {
    if (path !== keep) rmSync(path, { recursive: true, force: true });
  }
}

function copyDir(src: string, dst: string): void {
  mkdirSync(dst, { recursive: true });
  for (const name of readdirSync(src)) copyFileSync(join(src, name), join(dst, name));
}
