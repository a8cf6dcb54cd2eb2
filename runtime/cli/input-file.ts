/**
 * Files named on a command line, kubectl's way: `-` is standard input. Standard input can be read
 * once, so at most one option of a command may name it.
 */
import { readFileSync } from 'node:fs';

export const STDIN = '-';

/** Reads standard input to its end (fd 0), as text. */
export const readProcessStdin = (): string => readFileSync(0, 'utf8');

/** The options (by flag) that name `-`, when more than one does: a usage error for the caller. */
export function stdinConflict(options: Readonly<Record<string, string | undefined>>): string | undefined {
  const flags = Object.entries(options)
    .filter(([, value]) => value === STDIN)
    .map(([flag]) => flag);
  return flags.length > 1
    ? `only one option can read standard input ("-"), not ${flags.join(' and ')}`
    : undefined;
}

/** What to call a file in messages: `standard input` for `-`. */
export const inputName = (path: string): string => (path === STDIN ? 'standard input' : path);

/**
 * The text of `path`, or of standard input for `-`. Errors are the file system's (ENOENT, EACCES,
 * EISDIR), for the caller to report with the option's name.
 */
export function readInputFile(path: string, readStdin: () => string = readProcessStdin): string {
  return path === STDIN ? readStdin() : readFileSync(path, 'utf8');
}
