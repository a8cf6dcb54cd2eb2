/**
 * The Kubernetes minors this project renders for and the node agent accepts. One list, so the
 * renderer and NodeAgentConfiguration validation can never disagree. Upstream v1.91 supported
 * 1.25–1.29; newer minors follow the 1.29 rules (docs/compatibility.md).
 */
import { majorMinor, type SemVer } from './semver.js';

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

/** Gardener's `~X.Y` check on a version with pre-release and build metadata stripped. */
export function isSupportedKubernetesVersion(v: SemVer): boolean {
  return (SUPPORTED_KUBERNETES_MINORS as readonly string[]).includes(majorMinor(v));
}

export function unsupportedKubernetesVersionMessage(version: string): string {
  const list = SUPPORTED_KUBERNETES_MINORS.join(', ');
  return `unsupported kubernetes version "${version}" (supported minors: ${list})`;
}
