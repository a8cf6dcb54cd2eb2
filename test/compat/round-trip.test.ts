import { expect } from 'chai';
import fc from 'fast-check';
import { Differences } from './support/difference.js';
import { expectEveryDifferenceDeclared, useOracle } from './support/expect-declared.js';
import { oracle } from './support/oracle.js';
import { oscDocument } from './support/osc-arbitrary.js';
import { documentText, roundTripAll } from './support/round-trip.js';

const DOCUMENTS = 1500;

describe('compat check 4: osc.yaml with fields left out, null or empty means to us what it means to Go', () => {
  useOracle();

  it(`${DOCUMENTS} generated documents: decoded by both and written back, the same bytes`, async function () {
    this.timeout(60_000);
    const docs = fc.sample(oscDocument, { numRuns: DOCUMENTS, seed: 20240601 });
    const d = new Differences('round-trip', 'generated documents');
    const compared = await roundTripAll(oracle(), d, docs.map(documentText));
    expectEveryDifferenceDeclared('round-trip', d.found);
    // Go decodes (nearly) all of them: the comparison is of meaning, not of refusals.
    expect(compared).to.be.greaterThan(DOCUMENTS * 0.95);
  });
});
