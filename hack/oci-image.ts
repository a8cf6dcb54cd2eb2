/**
 * An OCI image layout in a tar file, written without dependencies: images of one layer each, the layer
 * and the archive written by charts/tar.ts, gzip by Node's zlib, digests sha256. Everything is
 * deterministic (mtime 0, uid/gid 0, fixed JSON key order, the epoch as creation time), so the same
 * files always give the same image digest. One image per architecture; `ociIndexLayout` joins them
 * in an image index (the multi-arch image a registry serves under one tag). Used by hack/build-node-agent-image.ts and
 * hack/build-controller-manager-image.ts.
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type TarEntry, tarBuffer, tarChunks } from '../charts/tar.js';

export const MEDIA_TYPE = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

export const sha256 = (data: Buffer | string) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { architecture: string; os: string };
  annotations?: Record<string, string>;
}

function descriptor(mediaType: string, data: Buffer): Descriptor {
  return { mediaType, digest: sha256(data), size: data.length };
}

const EPOCH = '1970-01-01T00:00:00Z';

const OCI_ARCH: Partial<Record<NodeJS.Architecture, string>> = { x64: 'amd64', arm64: 'arm64' };

export interface ImageSpec {
  /** The files of the image's only layer. */
  readonly files: readonly TarEntry[];
  readonly entrypoint: readonly string[];
  /** `uid:gid` the image runs as (default: root). */
  readonly user?: string;
  /** The config's `Labels`, e.g. what the image's runtime was made of. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Full reference, e.g. `registry.example.org/gardener/node-agent:v1.2.3`. */
  readonly name: string;
  /** OCI architecture; default: the running Node's (the one single executables are built for). */
  readonly architecture?: string;
  /** The history entry: what built it, and a comment. */
  readonly createdBy: string;
  readonly comment: string;
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

interface BuiltImage {
  readonly architecture: string;
  readonly manifest: Buffer;
  readonly blobs: readonly Buffer[];
}

function buildImage(spec: ImageSpec): BuiltImage {
  const architecture = spec.architecture ?? OCI_ARCH[process.arch];
  if (!architecture) throw new Error(`no OCI architecture for ${process.arch}`);
  const layerTar = tarBuffer(spec.files);
  const layer = gzipSync(layerTar);
  const labels = spec.labels
    ? Object.fromEntries(Object.entries(spec.labels).sort(([a], [b]) => a.localeCompare(b)))
    : undefined;
  const config = Buffer.from(
    JSON.stringify({
      // The epoch, not the build time, so the digest depends on the files only (tools such as
      // umoci expect the optional timestamps to be present).
      created: EPOCH,
      architecture,
      os: 'linux',
      config: {
        Entrypoint: [...spec.entrypoint],
        ...(spec.user ? { User: spec.user } : {}),
        ...(labels ? { Labels: labels } : {}),
      },
      rootfs: { type: 'layers', diff_ids: [sha256(layerTar)] },
      history: [{ created: EPOCH, created_by: spec.createdBy, comment: spec.comment }],
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
  return { architecture, manifest, blobs: [config, layer] };
}

const blobPath = (data: Buffer) => `blobs/sha256/${sha256(data).slice('sha256:'.length)}`;

/** The annotations that name a layout's entry: containerd's full name and OCI's tag. */
function refAnnotations(name: string): Record<string, string> {
  return { 'io.containerd.image.name': name, 'org.opencontainers.image.ref.name': tagOf(name) };
}

function layoutFiles(top: Descriptor, blobs: readonly Buffer[]): Map<string, Buffer> {
  const index = Buffer.from(
    JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPE.index, manifests: [top] }),
  );
  return new Map<string, Buffer>([
    ['oci-layout', Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' }))],
    ['index.json', index],
    ...blobs.map((b): [string, Buffer] => [blobPath(b), b]),
  ]);
}

/** A layout whose index.json names one image (one architecture) directly. */
export function ociLayout(spec: ImageSpec): OciImage {
  const image = buildImage(spec);
  const top: Descriptor = {
    ...descriptor(MEDIA_TYPE.manifest, image.manifest),
    annotations: refAnnotations(spec.name),
  };
  return {
    files: layoutFiles(top, [image.manifest, ...image.blobs]),
    manifestDigest: top.digest,
    name: spec.name,
  };
}

export interface OciIndexImage extends OciImage {
  /** The digest of the image index (what a registry serves under the tag). */
  readonly indexDigest: string;
  /** Architecture → the digest of that architecture's image manifest. */
  readonly manifests: ReadonlyMap<string, string>;
}

/**
 * A layout whose index.json names one entry, tagged `name`: an image index (the multi-arch image)
 * with one image manifest per spec, each with its platform, as `docker buildx` writes a
 * multi-platform OCI layout. `skopeo copy --all oci-archive:…` and `crane push` send the index and
 * every image; a runtime pulling the tag takes its own architecture's.
 */
export function ociIndexLayout(name: string, specs: readonly ImageSpec[]): OciIndexImage {
  if (specs.length === 0) throw new Error('an image index needs at least one image');
  const images = specs.map(buildImage);
  const architectures = images.map((i) => i.architecture);
  if (new Set(architectures).size !== architectures.length)
    throw new Error(`one image per architecture: ${architectures.join(', ')}`);
  const imageIndex = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPE.index,
      manifests: images.map(
        (i): Descriptor => ({
          ...descriptor(MEDIA_TYPE.manifest, i.manifest),
          platform: { architecture: i.architecture, os: 'linux' },
        }),
      ),
    }),
  );
  const top: Descriptor = { ...descriptor(MEDIA_TYPE.index, imageIndex), annotations: refAnnotations(name) };
  return {
    files: layoutFiles(top, [imageIndex, ...images.flatMap((i) => [i.manifest, ...i.blobs])]),
    manifestDigest: top.digest,
    indexDigest: top.digest,
    manifests: new Map(images.map((i) => [i.architecture, sha256(i.manifest)])),
    name,
  };
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
