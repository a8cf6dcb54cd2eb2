/**
 * The Kubernetes minors each contract renders for. One list per contract, so the renderer and
 * NodeAgentConfiguration validation can never disagree. Upstream v1.91 supported 1.25–1.29; newer
 * minors follow the 1.29 rules (docs/compatibility.md). Upstream v1.150.0 supports 1.32–1.36
 * (gardener v1.150.0 pkg/utils/validation/kubernetesversion/version.go).
 */
import type { GardenerVersion } from './gardener-version.js';
import { majorMinor, type SemVer } from './semver.js';

/** The v1.91.4 contract's minors (the node agent's, too). */
export const SUPPORTED_KUBERNETES_MINORS = [
  '1.25',
  '1.26',
  '1.27',
  '1.28',
  '1.29',
  '1.30',
  '1.31',
  '1.32',
  '1.33',
  '1.34',
] as const;

/** The v1.150.0 contract's minors, exactly upstream's: the two contracts share none with upstream. */
export const SUPPORTED_KUBERNETES_MINORS_V150 = ['1.32', '1.33', '1.34', '1.35', '1.36'] as const;

export function supportedKubernetesMinors(gardenerVersion: GardenerVersion): readonly string[] {
  return gardenerVersion === 'v1.150.0' ? SUPPORTED_KUBERNETES_MINORS_V150 : SUPPORTED_KUBERNETES_MINORS;
}

/** Gardener's `~X.Y` check on a version with pre-release and build metadata stripped. */
export function isSupportedKubernetesVersion(
  v: SemVer,
  gardenerVersion: GardenerVersion = 'v1.91.4',
): boolean {
  return supportedKubernetesMinors(gardenerVersion).includes(majorMinor(v));
}

export function unsupportedKubernetesVersionMessage(
  version: string,
  gardenerVersion: GardenerVersion = 'v1.91.4',
): string {
  const list = supportedKubernetesMinors(gardenerVersion).join(', ');
  const contract = gardenerVersion === 'v1.91.4' ? '' : ` of the Gardener ${gardenerVersion} contract`;
  return `unsupported kubernetes version "${version}" (supported minors${contract}: ${list})`;
}
