/**
 * Check 4 for the v1.150.0 contract: generated osc.yaml documents with the fields of both
 * contracts, left out, null or empty, decoded by v1.150.0's node agent decoder and written back by
 * gardenlet v1.150.0's encoder (the oracle's `roundTrip` op), against our decoder and our writer in
 * v1.150.0 form (api/objects/osc-wire.ts): the same bytes, so the same meaning.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { Differences } from '../support/difference.js';
import { expectEveryDifferenceDeclared } from '../support/expect-declared.js';
import { oracle150 } from '../support/oracle-150.js';
import { oscDocumentV150 } from '../support/osc-arbitrary.js';
import { documentText, roundTripAll } from '../support/round-trip.js';
import { useOracle150 } from '../support/use-oracle-150.js';

const DOCUMENTS = 1000;

describe('compat v1.150.0 check 4: osc.yaml of either contract means to us what it means to Go v1.150.0', () => {
  useOracle150();

  it(`${DOCUMENTS} generated documents: decoded by both and written back, the same bytes`, async function () {
    this.timeout(60_000);
    const docs = fc.sample(oscDocumentV150, { numRuns: DOCUMENTS, seed: 20260802 });
    const d = new Differences('round-trip', 'generated v1.150.0 documents');
    const compared = await roundTripAll(oracle150(), d, docs.map(documentText), 'v1.150.0');
    expectEveryDifferenceDeclared('round-trip', d.found);
    expect(compared).to.be.greaterThan(DOCUMENTS * 0.95);
  });
});
