/**
 * docs/compatibility.md, read as data: the id (first cell) and text of every table row that
 * declares a difference. The page stays the one place that says what differs and why; the compat
 * suite checks its declarations against what the oracle finds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const COMPAT_PAGE = join(import.meta.dirname, '../../../docs/compatibility.md');

/** `| 13 | ...`, `| N8 | ...` or `| V150-2 | ...` (the v1.150.0 contract): a declaration row and its id. */
const ROW = /^\|\s*([A-Z]?\d+|V150-\d+)\s*\|(.*)\|\s*$/;

export function declaredRows(text = readFileSync(COMPAT_PAGE, 'utf8')): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = ROW.exec(line);
    if (!m) continue;
    if (rows.has(m[1]!)) throw new Error(`docs/compatibility.md declares the id ${m[1]} twice`);
    rows.set(m[1]!, m[2]!.trim());
  }
  return rows;
}
