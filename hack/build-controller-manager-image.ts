/**
 * Writes `dist/gardener-osc-image.tar` (`npm run build:controller-manager-image`): the image the
 * controller-manager's Deployment runs, as an OCI image layout in a tar file, built like the node
 * agent's (hack/oci-image.ts). Its only layer holds
 * - `/gardener-osc`: the whole CLI as a Node 20 single executable (hack/single-executable.ts),
 * - the dynamic loader and the shared libraries that executable links (found with `ldd`, copied
 *   from this machine), so the image needs no base image,
 * - `/etc/passwd` and `/etc/group` naming the non-root user 65532 the image runs as, and `/tmp`.
 * It is tagged as `gardener-osc manifests` expects (`--image` default). Deterministic: the same
 * sources, Node binary and system libraries give the same image digest.
 *
 *   npm run build:controller-manager-image [-- --out FILE] [--name REF]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { VERSION } from '../api/version.js';
import { CONTROLLER_MANAGER_UID } from '../charts/controller-manager/workload.js';
import type { TarEntry } from '../charts/tar.js';
import { DEFAULT_CONTROLLER_MANAGER_IMAGE } from '../cli/manifests-command.js';
import { ociLayout, writeOciArchive } from './oci-image.js';
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

/** The absolute paths `ldd` resolves for a binary: its shared libraries and its dynamic loader. */
export function linkedFiles(lddOutput: string): string[] {
  const paths = new Set<string>();
  for (const line of lddOutput.split('\n')) {
    const m = /=>\s+(\/\S+)\s+\(0x/.exec(line) ?? /^\s*(\/\S+)\s+\(0x/.exec(line);
    if (m) paths.add(m[1]!);
  }
  return [...paths].sort();
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

export async function buildControllerManagerImage(
  options: { binary?: string; out?: string; name?: string; log?: (line: string) => void } = {},
): Promise<{ archive: string; manifestDigest: string; name: string; binary: string }> {
  const log = options.log ?? (() => undefined);
  const binary = options.binary ?? (await buildControllerManagerExecutable({ log })).binary;
  const libraries = new Map(
    linkedFiles(execFileSync('ldd', [binary], { encoding: 'utf8' })).map((path) => [
      path,
      readFileSync(realpathSync(path)),
    ]),
  );
  const name = options.name ?? DEFAULT_CONTROLLER_MANAGER_IMAGE;
  const image = ociLayout({
    files: imageFiles(readFileSync(binary), libraries),
    entrypoint: ['/gardener-osc'],
    user: `${CONTROLLER_MANAGER_UID}:${CONTROLLER_MANAGER_UID}`,
    name,
    createdBy: 'hack/build-controller-manager-image.ts',
    comment: `gardener-osc ${VERSION}`,
  });
  const archive = options.out ?? join(ROOT, 'dist', 'gardener-osc-image.tar');
  writeOciArchive(image, archive);
  log(`wrote ${archive}: ${name} (${image.manifestDigest})`);
  return { archive, manifestDigest: image.manifestDigest, name, binary };
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: { binary: { type: 'string' }, out: { type: 'string' }, name: { type: 'string' } },
  });
  buildControllerManagerImage({ ...values, log: (line) => console.log(line) }).catch((e: Error) => {
    console.error(`build-controller-manager-image: ${e.message}`);
    process.exitCode = 1;
  });
}
