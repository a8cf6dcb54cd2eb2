/** Upstream's gardener-node-agent built from its Go module by build.sh, once per machine. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface UpstreamNodeAgent {
  readonly binary: string;
  /** The Gardener version it was built at, e.g. `v1.91.4`. */
  readonly version: string;
  /** The Go toolchain that built it, e.g. `go1.26.8`. */
  readonly go: string;
}

const built = new Map<string, UpstreamNodeAgent>();

/**
 * The agent a build script of this kind makes (hack/upstream-node-agent*\/build.sh: the last line
 * on stdout is the cache dir, with the binary and its versions.txt). Builds it when the cache lacks
 * it (minutes cold; progress on this process's stderr).
 */
export function upstreamNodeAgentBuiltBy(buildScript: string): UpstreamNodeAgent {
  const known = built.get(buildScript);
  if (known) return known;
  const out = execFileSync('bash', [buildScript], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const dir = out.trim().split('\n').at(-1)!;
  const versions = new Map(
    readFileSync(join(dir, 'versions.txt'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
  );
  const agent = {
    binary: join(dir, 'gardener-node-agent'),
    version: versions.get('gardener') ?? 'unknown',
    go: versions.get('go') ?? 'unknown',
  };
  built.set(buildScript, agent);
  return agent;
}

/** Upstream's agent v1.91.4. */
export function upstreamNodeAgent(): UpstreamNodeAgent {
  return upstreamNodeAgentBuiltBy(resolve(import.meta.dirname, 'build.sh'));
}
