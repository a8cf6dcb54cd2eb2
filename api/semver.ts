/**
 * Kubernetes versions as Gardener reads them (Masterminds semver, lenient: `1.2` is `1.2.0`, a
 * leading `v` is allowed) and writes them (`String()`: no `v`).
 */
const LENIENT =
  /^v?([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

export interface SemVer {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: string;
  readonly metadata: string;
}

export class SemVerSyntaxError extends Error {
  constructor(text: string) {
    super(`invalid semantic version "${text}"`);
    this.name = 'SemVerSyntaxError';
  }
}

export function parseSemVer(text: string): SemVer {
  const m = LENIENT.exec(text);
  if (!m) throw new SemVerSyntaxError(text);
  const [, major = '0', minor = '0', patch = '0', prerelease = '', metadata = ''] = m;
  const numbers = [major, minor, patch].map(Number);
  if (numbers.some((n) => !Number.isSafeInteger(n))) throw new SemVerSyntaxError(text);
  for (const id of prerelease ? prerelease.split('.') : []) {
    if (/^[0-9]+$/.test(id) && id.length > 1 && id.startsWith('0')) throw new SemVerSyntaxError(text);
  }
  return { major: numbers[0]!, minor: numbers[1]!, patch: numbers[2]!, prerelease, metadata };
}

export function tryParseSemVer(text: string): SemVer | undefined {
  try {
    return parseSemVer(text);
  } catch {
    return undefined;
  }
}

export function formatSemVer(v: SemVer): string {
  let out = `${v.major}.${v.minor}.${v.patch}`;
  if (v.prerelease) out += `-${v.prerelease}`;
  if (v.metadata) out += `+${v.metadata}`;
  return out;
}

export function majorMinor(v: SemVer): string {
  return `${v.major}.${v.minor}`;
}

/**
 * `v >= major.minor-0`, the form Gardener's version constraints use: it includes pre-releases of
 * that minor, so only major and minor decide.
 */
export function isAtLeastMinor(v: SemVer, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}
