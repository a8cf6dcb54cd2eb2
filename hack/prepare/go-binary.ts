/**
 * Builds a small Go main package of hack/ (test tooling only) once per content hash into the user
 * cache, so repeated runs and CI on the same machine reuse it. Without Go the caller fails with a
 * message that says how to get it: tests that need Go never skip silently.
 *
 * As a program (`node --import tsx hack/prepare/go-binary.ts MODULE_DIR NAME`, a cold build of
 * hack/prepare) it builds one and prints its directory as the last line on stdout.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export function projectCacheDir(...parts: string[]): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'gardener-osc', ...parts);
}

function moduleHash(moduleDir: string): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(moduleDir).sort()) {
    if (name === 'go.mod' || name === 'go.sum' || name.endsWith('.go'))
      hash.update(name).update(readFileSync(join(moduleDir, name)));
  }
  return hash.digest('hex').slice(0, 12);
}

export function requireGo(): string {
  try {
    return execFileSync('go', ['version'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      'Go (>= 1.24) is required to build the test tooling under hack/ but `go` is not on PATH. ' +
        "Install a release from https://go.dev/dl/ (Debian 12's golang-go is 1.19, too old) and rerun.",
    );
  }
}

export function buildGoBinary(moduleDir: string, name: string): string {
  const dir = projectCacheDir('tools', `${name}-${moduleHash(moduleDir)}`);
  const binary = join(dir, name);
  if (existsSync(binary)) return binary;
  requireGo();
  mkdirSync(dir, { recursive: true });
  const tmp = `${binary}.tmp-${process.pid}`;
  execFileSync('go', ['build', '-trimpath', '-o', tmp, '.'], {
    cwd: moduleDir,
    env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-mod=readonly' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  renameSync(tmp, binary);
  return binary;
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const [moduleDir, name] = process.argv.slice(2);
  if (!moduleDir || !name) throw new Error('usage: go-binary.ts MODULE_DIR NAME');
  process.stdout.write(`${dirname(buildGoBinary(resolve(moduleDir), name))}\n`);
}
