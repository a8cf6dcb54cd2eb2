/**
 * What preparing the tests must do about missing prerequisites, decided apart from any I/O:
 * install the missing Debian packages (root with apt), or stop at once with one message that lists
 * everything missing. Go cannot be installed from Debian in a version new enough, so a missing or
 * old Go always stops, before anything is installed.
 */
import type { Package } from './registry.js';

export interface Situation {
  readonly missing: readonly Package[];
  /** Whether a build needs Go, and what `go env GOVERSION` said (undefined: no `go` on PATH). */
  readonly go: { readonly needed: boolean; readonly found?: string; readonly minimum: string };
  readonly root: boolean;
  readonly apt: boolean;
}

export type Plan =
  | { readonly action: 'none' }
  | { readonly action: 'install'; readonly packages: readonly string[] }
  | { readonly action: 'stop'; readonly message: string };

/** `go1.26.8` → [1, 26, 8]; undefined when it is not a release version. */
export function goVersion(text: string): number[] | undefined {
  const m = /^go(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

export function goIsRecentEnough(found: string, minimum: string): boolean {
  const have = goVersion(found);
  const want = goVersion(`go${minimum}`)!;
  if (!have) return true; // a development build (devel go1.x-…): let the build itself judge
  for (let i = 0; i < 3; i++) if (have[i] !== want[i]) return have[i]! > want[i]!;
  return true;
}

function goProblem(go: Situation['go']): string | undefined {
  if (!go.needed) return undefined;
  if (go.found === undefined)
    return `Go >= ${go.minimum} is not on PATH: it builds kube-apiserver, etcd and the Go reference programs under hack/ (https://go.dev/dl/)`;
  if (!goIsRecentEnough(go.found, go.minimum))
    return `Go >= ${go.minimum} is needed, this machine has ${go.found} (https://go.dev/dl/)`;
  return undefined;
}

export function installCommand(packages: readonly string[]): string {
  return `apt-get update && apt-get install -y --no-install-recommends ${packages.join(' ')}`;
}

export function decide(situation: Situation): Plan {
  const go = goProblem(situation.go);
  const debs = [...new Set(situation.missing.map((p) => p.deb))];
  if (!go && debs.length === 0) return { action: 'none' };
  if (!go && situation.root && situation.apt) return { action: 'install', packages: debs };
  const lines = ['this machine lacks what the tests need; no test was run:'];
  if (debs.length > 0) {
    const width = Math.max(...situation.missing.map((p) => p.command.length));
    lines.push(`  Debian packages, install them with: ${installCommand(debs)}`);
    for (const p of situation.missing) lines.push(`    ${p.command.padEnd(width)}  (${p.deb}) ${p.why}`);
    if (!situation.root) lines.push('    (run as root, npm test installs them itself)');
  }
  if (go) lines.push(`  ${go}`);
  return { action: 'stop', message: lines.join('\n') };
}
