/**
 * Writes `dist/gardener-osc-image.tar` (`npm run build:controller-manager-image`): the image the
 * controller-manager's Deployment runs, as an OCI image layout in a tar file (hack/oci-image.ts):
 * an image index with one image per architecture (`--arch amd64 --arch arm64`; default the build
 * machine's only). Each image's only layer holds
 * - `/gardener-osc`: the whole CLI as a Node 20 single executable for that architecture
 *   (hack/single-executable.ts, on the official Node.js binary of the pinned npm package),
 * - the dynamic loader and the shared libraries that executable needs (its ELF DT_NEEDED, closed
 *   over), unpacked from Debian's packages for that architecture (hack/image-runtime.ts), never the
 *   build machine's; their versions are the image's labels,
 * - `/etc/passwd` and `/etc/group` naming the non-root user 65532 the image runs as, and `/tmp`.
 * It is tagged as `gardener-osc manifests` expects (`--image` default). Deterministic: the same
 * sources, Node packages and Debian packages give the same image digest.
 *
 *   npm run build:controller-manager-image [-- --arch amd64 --arch arm64] [--out FILE] [--name REF]
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { VERSION } from '../api/version.js';
import { CONTROLLER_MANAGER_UID } from '../charts/controller-manager/workload.js';
import type { TarEntry } from '../charts/tar.js';
import { DEFAULT_CONTROLLER_MANAGER_IMAGE } from '../cli/manifests-command.js';
import {
  ARCHES,
  debRoot,
  hostArch,
  type ImageArch,
  NODE_DIST_VERSION,
  parseArch,
  runtimeFor,
} from './image-runtime.js';
import { type ImageSpec, ociIndexLayout, writeOciArchive } from './oci-image.js';
import {
  type BuildOptions,
  type BuildResult,
  buildExecutable,
  type ExecutableSpec,
} from './single-executable.js';

const ROOT = resolve(import.meta.dirname, '..');

export const CONTROLLER_MANAGER_EXECUTABLE: ExecutableSpec = {
  name: 'gardener-osc',
  entry: join(ROOT, 'cli/executable.ts'),
  sourceDirs: ['api', 'runtime', 'components', 'charts', 'controllers', 'cli'],
  cacheName: 'controller-manager-sea',
};

export function buildControllerManagerExecutable(options: BuildOptions = {}): Promise<BuildResult> {
  return buildExecutable(CONTROLLER_MANAGER_EXECUTABLE, options);
}

/** Every parent directory of the files, once, parents first. */
function directoriesOf(paths: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    for (let dir = dirname(path); dir !== '.' && dir !== '/'; dir = dirname(dir)) dirs.add(dir);
  }
  return [...dirs].sort();
}

export function imageFiles(binary: Buffer, libraries: ReadonlyMap<string, Buffer>): TarEntry[] {
  const uid = CONTROLLER_MANAGER_UID;
  const files: TarEntry[] = [
    { name: 'gardener-osc', type: 'file', mode: 0o755, data: binary },
    {
      name: 'etc/passwd',
      type: 'file',
      mode: 0o644,
      data: Buffer.from(
        `root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:${uid}:${uid}:nonroot:/home/nonroot:/sbin/nologin\n`,
      ),
    },
    { name: 'etc/group', type: 'file', mode: 0o644, data: Buffer.from(`root:x:0:\nnonroot:x:${uid}:\n`) },
    ...[...libraries].map(
      ([path, data]): TarEntry => ({
        name: path.replace(/^\//, ''),
        type: 'file',
        mode: /\/ld-linux/.test(path) ? 0o755 : 0o644,
        data,
      }),
    ),
  ];
  const dirs = directoriesOf(files.map((f) => f.name)).map(
    (name): TarEntry => ({ name, type: 'dir', mode: 0o755 }),
  );
  return [
    ...dirs,
    { name: 'tmp', type: 'dir', mode: 0o1777 },
    ...files.sort((a, b) => a.name.localeCompare(b.name)),
  ];
}

/** The labels that say what an image's runtime was made of (config `Labels`). */
export function runtimeLabels(
  arch: ImageArch,
  debs: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    'org.opencontainers.image.version': VERSION,
    'io.gardener.osc.node': `${ARCHES[arch].nodePackage}@${NODE_DIST_VERSION} ${ARCHES[arch].integrity}`,
    'io.gardener.osc.debs': Object.entries(debs)
      .map(([name, version]) => `${name}:${arch}=${version}`)
      .join(' '),
  };
}

export interface ControllerManagerImageOptions {
  /** The architectures, one image each; default the build machine's. */
  readonly arches?: readonly ImageArch[];
  /** Prebuilt executables per architecture (else they are built). */
  readonly binaries?: Partial<Record<ImageArch, string>>;
  readonly out?: string;
  readonly name?: string;
  readonly log?: (line: string) => void;
}

export interface ControllerManagerImage {
  readonly archive: string;
  /** The digest of the image index, what the tag names. */
  readonly indexDigest: string;
  /** Architecture → its image manifest's digest. */
  readonly manifests: ReadonlyMap<string, string>;
  readonly name: string;
  readonly binaries: Readonly<Partial<Record<ImageArch, string>>>;
}

export async function imageSpec(
  arch: ImageArch,
  binary: string,
  name: string,
  log: (line: string) => void = () => undefined,
): Promise<ImageSpec> {
  const data = readFileSync(binary);
  const runtime = runtimeFor(data, arch, debRoot(arch, { log }));
  return {
    files: imageFiles(data, runtime.files),
    entrypoint: ['/gardener-osc'],
    user: `${CONTROLLER_MANAGER_UID}:${CONTROLLER_MANAGER_UID}`,
    labels: runtimeLabels(arch, runtime.debs),
    name,
    architecture: arch,
    createdBy: 'hack/build-controller-manager-image.ts',
    comment: `gardener-osc ${VERSION} linux/${arch}`,
  };
}

export async function buildControllerManagerImage(
  options: ControllerManagerImageOptions = {},
): Promise<ControllerManagerImage> {
  const log = options.log ?? (() => undefined);
  const arches = [...new Set(options.arches ?? [hostArch()])];
  const name = options.name ?? DEFAULT_CONTROLLER_MANAGER_IMAGE;
  const binaries: Partial<Record<ImageArch, string>> = {};
  const specs: ImageSpec[] = [];
  for (const arch of arches) {
    const binary = options.binaries?.[arch] ?? (await buildControllerManagerExecutable({ arch, log })).binary;
    binaries[arch] = binary;
    specs.push(await imageSpec(arch, binary, name, log));
  }
  const image = ociIndexLayout(name, specs);
  const archive = options.out ?? join(ROOT, 'dist', 'gardener-osc-image.tar');
  writeOciArchive(image, archive);
  log(`wrote ${archive}: ${name} (${arches.join(', ')}; index ${image.indexDigest})`);
  return { archive, indexDigest: image.indexDigest, manifests: image.manifests, name, binaries };
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: {
      arch: { type: 'string', multiple: true },
      out: { type: 'string' },
      name: { type: 'string' },
    },
  });
  Promise.resolve()
    .then(() =>
      buildControllerManagerImage({
        arches: values.arch?.flatMap((a) => a.split(',')).map(parseArch),
        out: values.out,
        name: values.name,
        log: (line) => console.log(line),
      }),
    )
    .catch((e: Error) => {
      console.error(`build-controller-manager-image: ${e.message}`);
      process.exitCode = 1;
    });
}
