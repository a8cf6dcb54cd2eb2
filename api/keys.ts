/**
 * The names every worker pool's objects derive from (gardener v1.91.4
 * pkg/component/extensions/operatingsystemconfig/operatingsystemconfig.go). A key changes, and so
 * rolls the pool, only when `<major>.<minor>` or the CRI name changes. A nil CRI and an explicit
 * `containerd` hash differently; that quirk stays, because changing a name rolls nodes.
 */
import { sha256Hex } from './checksum.js';
import type { OscPurpose } from './schema/operating-system-config.js';
import { majorMinor, parseSemVer, type SemVer } from './semver.js';
import { NAME } from './well-known/names.js';

function toSemVer(version: SemVer | string): SemVer {
  return typeof version === 'string' ? parseSemVer(version) : version;
}

export function keySuffixHash(version: SemVer | string, criName: string | undefined): string {
  return sha256Hex(majorMinor(toSemVer(version)) + (criName ?? '')).slice(0, 5);
}

function keyWith(
  prefix: string,
  pool: string,
  version: SemVer | string | undefined,
  criName?: string,
): string {
  if (version === undefined) return '';
  return `${prefix}-${pool}-${keySuffixHash(version, criName)}`;
}

/** `gardener-node-agent-<pool>-<hash>`: the OSC secret name in the shoot and the OSC name prefix. */
export function key(pool: string, version: SemVer | string | undefined, criName?: string): string {
  return keyWith(NAME.keyPrefixNodeAgent, pool, version, criName);
}

/** `cloud-config-<pool>-<hash>`: the legacy (gate off) name. */
export function legacyKey(pool: string, version: SemVer | string | undefined, criName?: string): string {
  return keyWith(NAME.keyPrefixLegacy, pool, version, criName);
}

export function keyFor(
  useGardenerNodeAgent: boolean,
  pool: string,
  version: SemVer | string | undefined,
  criName?: string,
): string {
  return useGardenerNodeAgent ? key(pool, version, criName) : legacyKey(pool, version, criName);
}

/** `-<image>-init|-downloader` (provision) or `-<image>-original` (reconcile). */
export function keySuffix(imageName: string, purpose: OscPurpose, useGardenerNodeAgent: boolean): string {
  if (purpose === 'reconcile') return `-${imageName}-original`;
  return `-${imageName}-${useGardenerNodeAgent ? 'init' : 'downloader'}`;
}
