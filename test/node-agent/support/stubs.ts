/** Stub executables (systemctl, ctr) put first on PATH for a test. */
import { join } from 'node:path';

export const STUB_DIR = join(import.meta.dirname, 'stubs');

export function stubEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${STUB_DIR}:${process.env.PATH ?? ''}`, ...extra };
}

export function loggedCalls(text: string): string[][] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t').slice(0, -1));
}
