/**
 * Writes `dist/gardener-node-agent-image.tar` (`npm run build:node-agent-image`): an OCI image layout
 * in a tar file, holding one image whose only layer is the single executable at
 * `/gardener-node-agent`, where the node init script expects it (`ctr images mount` + copy, node-side
 * §4). Import with `ctr images import`, or `skopeo copy oci-archive:…` to push it to a registry.
 *
 * No dependencies: the layer and the archive are written by the small ustar writer below, gzip is
 * Node's zlib, digests are sha256. Everything is deterministic (mtime 0, uid/gid 0, fixed JSON key
 * order), so the same binary always gives the same image digest.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { type TarEntry, tarBuffer, tarChunks } from '../charts/tar.js';
import { NODE_AGENT_VERSION } from '../node-agent/version.js';
import { BINARY_NAME, buildNodeAgent } from './build-node-agent.js';

const ROOT = resolve(import.meta.dirname, '..');

export const MEDIA_TYPE = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

export { type TarEntry, tarBuffer, tarChunks, tarHeader } from '../charts/tar.js';

export const DEFAULT_IMAGE_NAME = `localhost/gardener-node-agent:v${NODE_AGENT_VERSION}`;

// ---- the OCI layout --------------------------------------------------------------------------

export const sha256 = (data: Buffer | string) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

function descriptor(mediaType: string, data: Buffer): Descriptor {
  return { mediaType, digest: sha256(data), size: data.length };
}

const EPOCH = '1970-01-01T00:00:00Z';

const OCI_ARCH: Partial<Record<NodeJS.Architecture, string>> = { x64: 'amd64', arm64: 'arm64' };

export interface ImageOptions {
  /** The single executable; it becomes `/gardener-node-agent`. */
  readonly binary: Buffer;
  /** Full reference, e.g. `registry.example.org/gardener/node-agent:v1.2.3`. */
  readonly name?: string;
  /** OCI architecture; default: the one the binary was built for (the running Node's). */
  readonly architecture?: string;
}

export interface OciImage {
  /** Path in the archive → content (blobs under `blobs/sha256/<hex>`). */
  readonly files: ReadonlyMap<string, Buffer>;
  readonly manifestDigest: string;
  readonly name: string;
}

/** The tag of a reference (`…/x:v1` → `v1`); `latest` without one. Digests are not tags. */
export function tagOf(reference: string): string {
  const last = reference.slice(reference.lastIndexOf('/') + 1);
  const colon = last.indexOf(':');
  return colon === -1 ? 'latest' : last.slice(colon + 1);
}

export function ociImage(options: ImageOptions): OciImage {
  const name = options.name ?? DEFAULT_IMAGE_NAME;
  const architecture = options.architecture ?? OCI_ARCH[process.arch];
  if (!architecture) throw new Error(`no OCI architecture for ${process.arch}`);

  const layerTar = tarBuffer([{ name: BINARY_NAME, type: 'file', mode: 0o755, data: options.binary }]);
  const layer = gzipSync(layerTar);
  const config = Buffer.from(
    JSON.stringify({
      // The epoch, not the build time, so the digest depends on the binary only (tools such as
      // umoci expect the optional timestamps to be present).
      created: EPOCH,
      architecture,
      os: 'linux',
      config: { Entrypoint: [`/${BINARY_NAME}`] },
      rootfs: { type: 'layers', diff_ids: [sha256(layerTar)] },
      history: [
        {
          created: EPOCH,
          created_by: 'hack/build-node-agent-image.ts',
          comment: `gardener-node-agent ${NODE_AGENT_VERSION}`,
        },
      ],
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPE.manifest,
      config: descriptor(MEDIA_TYPE.config, config),
      layers: [descriptor(MEDIA_TYPE.layer, layer)],
    }),
  );
  const manifestDescriptor: Descriptor = {
    ...descriptor(MEDIA_TYPE.manifest, manifest),
    annotations: { 'io.containerd.image.name': name, 'org.opencontainers.image.ref.name': tagOf(name) },
  };
  const index = Buffer.from(
    JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPE.index, manifests: [manifestDescriptor] }),
  );
  const blob = (data: Buffer) => `blobs/sha256/${sha256(data).slice('sha256:'.length)}`;
  const files = new Map<string, Buffer>([
    ['oci-layout', Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' }))],
    ['index.json', index],
    [blob(manifest), manifest],
    [blob(config), config],
    [blob(layer), layer],
  ]);
  return { files, manifestDigest: manifestDescriptor.digest, name };
}

/** Writes the layout as a tar file (atomically: a temp file renamed into place). */
export function writeOciArchive(image: OciImage, out: string): void {
  mkdirSync(dirname(out), { recursive: true });
  const temp = `${out}.tmp`;
  const fd = openSync(temp, 'w', 0o644);
  try {
    const entries: TarEntry[] = [
      { name: 'blobs', type: 'dir', mode: 0o755 },
      { name: 'blobs/sha256', type: 'dir', mode: 0o755 },
      ...[...image.files].map(([name, data]): TarEntry => ({ name, type: 'file', mode: 0o644, data })),
    ];
    for (const chunk of tarChunks(entries)) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, out);
}

export async function buildNodeAgentImage(
  options: { binary?: string; out?: string; name?: string; log?: (line: string) => void } = {},
): Promise<{ archive: string; manifestDigest: string; name: string }> {
  const log = options.log ?? (() => undefined);
  const binary = options.binary ?? (await buildNodeAgent({ log })).binary;
  const archive = options.out ?? join(ROOT, 'dist', `${BINARY_NAME}-image.tar`);
  const image = ociImage({ binary: readFileSync(binary), name: options.name });
  writeOciArchive(image, archive);
  log(`wrote ${archive}: ${image.name} (${image.manifestDigest})`);
  return { archive, manifestDigest: image.manifestDigest, name: image.name };
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: { binary: { type: 'string' }, out: { type: 'string' }, name: { type: 'string' } },
  });
  buildNodeAgentImage({ ...values, log: (line) => console.log(line) }).catch((e: Error) => {
    console.error(`build-node-agent-image: ${e.message}`);
    process.exitCode = 1;
  });
}
