/**
 * Golden files: `expectGolden(name, actual)` compares with test/golden/<name>. With UPDATE_GOLDEN=1
 * it rewrites the file (review the diff like code); a missing file is written locally but is a
 * failure under CI, so a golden can never be created unreviewed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';

export const GOLDEN_DIR = join(import.meta.dirname, 'golden');

export function expectGolden(name: string, actual: string): void {
  const file = join(GOLDEN_DIR, name);
  const update = process.env.UPDATE_GOLDEN === '1';
  if (update || !existsSync(file)) {
    if (!update && process.env.CI)
      throw new Error(`golden file test/golden/${name} is missing (run UPDATE_GOLDEN=1 locally)`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
  }
  expect(actual, `differs from test/golden/${name} (UPDATE_GOLDEN=1 to accept)`).to.equal(
    readFileSync(file, 'utf8'),
  );
}
