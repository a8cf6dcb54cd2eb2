/**
 * Writes `dist/gardener-node-agent-image.tar` (`npm run build:node-agent-image`): an OCI image layout
 * in a tar file (hack/oci-image.ts), holding one image whose only layer is the single executable at
 * `/gardener-node-agent`, where the node init script expects it (`ctr images mount` + copy, node-side
 * §4). Import with `ctr images import`, or `skopeo copy oci-archive:…` to push it to a registry.
 * Deterministic: the same binary always gives the same image digest.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { NODE_AGENT_VERSION } from '../node-agent/version.js';
import { BINARY_NAME, buildNodeAgent } from './build-node-agent.js';
import { type OciImage, ociLayout, writeOciArchive } from './oci-image.js';

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

export function ociImage(options: ImageOptions): OciImage {
  return ociLayout({
    files: [{ name: BINARY_NAME, type: 'file', mode: 0o755, data: options.binary }],
    entrypoint: [`/${BINARY_NAME}`],
    name: options.name ?? DEFAULT_IMAGE_NAME,
    architecture: options.architecture,
    createdBy: 'hack/build-node-agent-image.ts',
    comment: `gardener-node-agent ${NODE_AGENT_VERSION}`,
  });
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
