/**
 * Files that ship with the package (examples/), found from the sources (`cli/`) and from the
 * compiled package (`build/cli/`) alike: the nearest directory above this module that holds a
 * package.json. In a single-executable bundle (CommonJS, no import.meta) it is the executable's
 * directory.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function packageRoot(): string {
  const here: string | undefined = import.meta.dirname;
  if (!here) return dirname(process.execPath);
  for (let dir = here; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return here;
  }
}

export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
