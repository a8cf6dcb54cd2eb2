/**
 * The npm package as a user gets it: `npm pack`, then the tarball installed into an empty project
 * (from the npm cache `npm ci` filled: no registry needed). Packed and installed once per test
 * process, whichever suite asks first; removed when the process exits.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './package-build.js';

export interface InstalledPackage {
  /** The consumer project the tarball is installed in. */
  readonly project: string;
  /** The paths the tarball holds. */
  readonly files: readonly string[];
  /** An executable of the installed package, as node_modules/.bin holds it. */
  bin(name: 'gardener-osc' | 'gardener-node-agent'): string;
}

/** The environment of a user's shell: no TypeScript loader from this test run. */
export function plainEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_AGENT_REFUSE_HOST_ROOT: '1' };
  delete env.NODE_OPTIONS;
  return env;
}

export function runPlain(file: string, args: string[], cwd: string, input?: string) {
  const r = spawnSync(file, args, { cwd, env: plainEnv(), encoding: 'utf8', input, maxBuffer: 1 << 26 });
  if (r.error) throw r.error;
  return r;
}

let installed: InstalledPackage | undefined;

export function installedPackage(): InstalledPackage {
  if (installed) return installed;
  const dir = mkdtempSync(join(tmpdir(), 'osc-npm-package-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  // npm pack runs `prepare`, which compiles build/ when the sources changed
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: ROOT,
      env: plainEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  ) as [{ filename: string; files: { path: string }[] }];
  const project = join(dir, 'consumer');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  execFileSync(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      join(dir, packed[0].filename),
    ],
    { cwd: project, env: plainEnv(), stdio: ['ignore', 'ignore', 'inherit'] },
  );
  installed = {
    project,
    files: packed[0].files.map((f) => f.path),
    bin: (name) => join(project, 'node_modules/.bin', name),
  };
  return installed;
}
