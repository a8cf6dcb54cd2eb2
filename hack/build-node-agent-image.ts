/**
 * Writes `dist/gardener-node-agent-image.tar` (`npm run build:node-agent-image`): an OCI image
 * layout in a tar file (hack/oci-image.ts) whose tag names an image index with one image per
 * architecture (`--arch amd64 --arch arm64`; default the build machine's only), each image's only
 * layer the single executable for that architecture at `/gardener-node-agent`, where the node init
 * script expects it (`ctr images mount` + copy, gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/nodeinit/templates/scripts/init.tpl.sh). The
 * executable runs on the node's own glibc (it is copied out of the image onto the host), so the
 * image holds no libraries. Import with `ctr images import`, or `skopeo copy --all oci-archive:…`
 * to push it to a registry. Deterministic: the same binaries always give the same image digest.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { NODE_AGENT_VERSION } from '../node-agent/version.js';
import { BINARY_NAME, buildNodeAgent } from './build-node-agent.js';
import { ARCHES, hostArch, type ImageArch, NODE_DIST_VERSION, parseArch } from './image-runtime.js';
import { type ImageSpec, type OciImage, ociIndexLayout, ociLayout, writeOciArchive } from './oci-image.js';

const ROOT = resolve(import.meta.dirname, '..');

export { type TarEntry, tarBuffer, tarChunks, tarHeader } from '../charts/tar.js';
export { MEDIA_TYPE, type OciImage, sha256, tagOf, writeOciArchive } from './oci-image.js';

export const DEFAULT_IMAGE_NAME = `localhost/gardener-node-agent:v${NODE_AGENT_VERSION}`;

export interface ImageOptions {
  /** The single executable; it becomes `/gardener-node-agent`. */
  readonly binary: Buffer;
  /** Full reference, e.g. `registry.example.org/gardener/node-agent:v1.2.3`. */
  readonly name?: string;
  /** OCI architecture; default: the one the binary was built for (the running Node's). */
  readonly architecture?: string;
}

function imageSpec(options: ImageOptions): ImageSpec {
  const arch = options.architecture as ImageArch | undefined;
  return {
    files: [{ name: BINARY_NAME, type: 'file', mode: 0o755, data: options.binary }],
    entrypoint: [`/${BINARY_NAME}`],
    name: options.name ?? DEFAULT_IMAGE_NAME,
    architecture: options.architecture,
    ...(arch && ARCHES[arch]
      ? {
          labels: {
            'org.opencontainers.image.version': NODE_AGENT_VERSION,
            'io.gardener.osc.node': `${ARCHES[arch].nodePackage}@${NODE_DIST_VERSION} ${ARCHES[arch].integrity}`,
          },
        }
      : {}),
    createdBy: 'hack/build-node-agent-image.ts',
    comment: `gardener-node-agent ${NODE_AGENT_VERSION}`,
  };
}

/** One image of one binary, named directly by the layout (no index). */
export function ociImage(options: ImageOptions): OciImage {
  return ociLayout(imageSpec(options));
}

export interface NodeAgentImage {
  readonly archive: string;
  /** The digest of the image index, what the tag names. */
  readonly indexDigest: string;
  /** Architecture → its image manifest's digest. */
  readonly manifests: ReadonlyMap<string, string>;
  readonly name: string;
}

export async function buildNodeAgentImage(
  options: {
    /** The architectures, one image each; default the build machine's. */
    arches?: readonly ImageArch[];
    /** Prebuilt executables per architecture (else they are built). */
    binaries?: Partial<Record<ImageArch, string>>;
    out?: string;
    name?: string;
    log?: (line: string) => void;
  } = {},
): Promise<NodeAgentImage> {
  const log = options.log ?? (() => undefined);
  const arches = [...new Set(options.arches ?? [hostArch()])];
  const name = options.name ?? DEFAULT_IMAGE_NAME;
  const specs: ImageSpec[] = [];
  for (const arch of arches) {
    const binary = options.binaries?.[arch] ?? (await buildNodeAgent({ arch, log })).binary;
    specs.push(imageSpec({ binary: readFileSync(binary), name, architecture: arch }));
  }
  const image = ociIndexLayout(name, specs);
  const archive = options.out ?? join(ROOT, 'dist', `${BINARY_NAME}-image.tar`);
  writeOciArchive(image, archive);
  log(`wrote ${archive}: ${name} (${arches.join(', ')}; index ${image.indexDigest})`);
  return { archive, indexDigest: image.indexDigest, manifests: image.manifests, name };
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: { arch: { type: 'string', multiple: true }, out: { type: 'string' }, name: { type: 'string' } },
  });
  Promise.resolve()
    .then(() =>
      buildNodeAgentImage({
        arches: values.arch?.flatMap((a) => a.split(',')).map(parseArch),
        out: values.out,
        name: values.name,
        log: (line) => console.log(line),
      }),
    )
    .catch((e: Error) => {
      console.error(`build-node-agent-image: ${e.message}`);
      process.exitCode = 1;
    });
}
