import { expect } from 'chai';
import { Differences } from './support/difference.js';
import {
  expectEveryDeclarationUsed,
  expectEveryDifferenceDeclared,
  useOracle,
} from './support/expect-declared.js';
import { oracle } from './support/oracle.js';
import { compareOscSecret, oscSecretCases } from './support/osc-secret-case.js';

describe("compat: the OSC secret against gardenlet's OperatingSystemConfigSecret", () => {
  useOracle();
  const found: Differences['found'] = [];

  before(async function () {
    this.timeout(60_000);
    for (const c of oscSecretCases()) {
      const d = new Differences('osc-secret', c.name);
      await compareOscSecret(oracle(), d, c);
      found.push(...d.found);
    }
  });

  it("S-TV-9 (upstream's own vector) and a missing secret: the same bytes, checksum and error", () => {
    const stv9 = found.filter((d) => d.case.startsWith('S-TV-9'));
    expect(stv9, JSON.stringify(stv9, null, 1)).to.deep.equal([]);
  });

  it('secret bytes that are not UTF-8 are inlined as they are, as Go does', () => {
    expect(found.filter((d) => d.case === 'secret bytes that are not UTF-8')).to.deep.equal([]);
  });

  it('every difference is declared in docs/compatibility.md', () => {
    expectEveryDifferenceDeclared('osc-secret', found);
  });

  it('every declaration still matches a difference', () => {
    expectEveryDeclarationUsed('osc-secret', found);
  });
});
