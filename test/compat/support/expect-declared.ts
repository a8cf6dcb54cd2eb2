/** The rule of the compat suite: every difference is declared, and every declaration still holds. */
import { expect } from 'chai';
import { uncovered, unused } from './declarations.js';
import { type Check, type Difference, formatDifference } from './difference.js';
import { ORACLE_BUILD_TIMEOUT_MS, oracle } from './oracle.js';

const SHOWN = 25;

export function expectEveryDifferenceDeclared(check: Check, found: readonly Difference[]): void {
  const bad = uncovered(check, found);
  const shown = bad.slice(0, SHOWN).map(formatDifference).join('\n');
  const more = bad.length > SHOWN ? `\n… and ${bad.length - SHOWN} more` : '';
  expect(
    bad.length,
    `${bad.length} difference(s) from Gardener ${check.endsWith('v1.150') ? 'v1.150.0' : 'v1.91.4'} that no id of docs/compatibility.md declares:\n${shown}${more}\n`,
  ).to.equal(0);
}

export function expectEveryDeclarationUsed(check: Check, found: readonly Difference[]): void {
  const stale = unused(check, found).map((x) => `${x.id}: ${x.what}`);
  expect(
    stale,
    `declared in docs/compatibility.md (test/compat/support/declarations.ts) but no longer found by the ${check} check`,
  ).to.deep.equal([]);
}

/** A suite's `before`: builds (once per machine) and starts the oracle; a cold build takes minutes. */
export function useOracle(): void {
  before(function () {
    this.timeout(ORACLE_BUILD_TIMEOUT_MS);
    oracle();
  });
}
