/** The checksums Gardener puts into names and annotations (gardener v1.91.4 pkg/utils/checksums.go). */
import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** ComputeSecretChecksum: sha256 over the concatenated sha256 of every value, keys in byte order. */
export function secretChecksum(data: Readonly<Record<string, string | Uint8Array>>): string {
  const keys = Object.keys(data).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return sha256Hex(keys.map((k) => sha256Hex(data[k]!)).join(''));
}
