/** The real-node image (root filesystem and unpacked systemd-nspawn), built once per machine. */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

export const BUILD_SCRIPT = resolve(import.meta.dirname, 'build.sh');

let cacheDir: string | undefined;

/**
 * Runs hack/real-node/build.sh (minutes cold, well under a second warm; progress on this process's
 * stderr) and returns its cache dir.
 */
export function realNodeCache(): string {
  if (cacheDir) return cacheDir;
  const out = execFileSync('bash', [BUILD_SCRIPT], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cacheDir = out.trim().split('\n').at(-1)!;
  return cacheDir;
}
