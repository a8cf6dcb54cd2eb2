/**
 * Tests that run the package's executables run the compiled code in build/: this brings build/ up
 * to date first (a no-op when `npm test` already did, through hack/prepare).
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export function ensurePackageBuilt(): string {
  return execFileSync(process.execPath, [join(ROOT, 'hack/build-package.mjs'), '--print-dir'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .at(-1)!;
}
