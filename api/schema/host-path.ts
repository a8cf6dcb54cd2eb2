/**
 * What the node agent will write to: an OSC file path must be absolute and normalised, a unit or
 * drop-in name a single path segment. Checked in the schema, so a bad OSC is rejected as a whole
 * before anything is written (never half-applied), on the seed and on the node alike.
 */
import { posix } from 'node:path';
import * as z from 'zod';

export function hostPathProblem(path: string): string | undefined {
  if (path.includes('\0')) return 'must not contain a NUL byte';
  if (!path.startsWith('/')) return 'must be an absolute path';
  if (path.split('/').includes('..')) return 'must not contain ".." segments';
  if (path === '/' || path.endsWith('/')) return 'must name a file, not a directory';
  if (posix.normalize(path) !== path) return 'must be normalised (no "//" or "." segments)';
  return undefined;
}

export function unitNameProblem(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name.includes('\0')) return 'must not contain a NUL byte';
  if (name.includes('/')) return 'must be a file name without "/"';
  if (name === '.' || name === '..') return 'must not be "." or ".."';
  return undefined;
}

function refined(problem: (s: string) => string | undefined) {
  return z.string().superRefine((value, ctx) => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: 'custom', message, input: value });
  });
}

export const HostPath = refined(hostPathProblem);
export const UnitFileName = refined(unitNameProblem);
