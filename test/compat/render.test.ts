import { expect } from 'chai';
import { compareSeedObjects } from './support/compare-render.js';
import { RENDER_CORPUS } from './support/corpus.js';
import { derivedNames } from './support/derived-names.js';
import { Differences } from './support/difference.js';
import {
  expectEveryDeclarationUsed,
  expectEveryDifferenceDeclared,
  useOracle,
} from './support/expect-declared.js';
import { oracle } from './support/oracle.js';
import { renderBoth } from './support/render-case.js';

describe("compat check 2: gardenlet's own OSC deployer renders the same inputs as we do", () => {
  useOracle();
  const found: Differences['found'] = [];
  const derived: Differences['found'] = [];
  let objects = 0;

  before(async function () {
    this.timeout(120_000);
    for (const c of RENDER_CORPUS) {
      const pair = await renderBoth(oracle(), c);
      objects += pair.upstream.length;
      const d = new Differences('render', c.name);
      compareSeedObjects(d, pair.ours.seed as unknown as Record<string, unknown>[], pair.upstream);
      found.push(...d.found);
      const names = new Differences('render', c.name);
      await derivedNames(oracle(), names, c, pair);
      derived.push(...names.found);
    }
  });

  it('compares every object of every case', () => {
    expect(objects).to.be.greaterThan(60);
  });

  it("OSC keys, ManagedResource secret names and registry bytes, checksums: upstream's functions on our data agree", () => {
    expect(derived, JSON.stringify(derived, null, 1)).to.deep.equal([]);
  });

  it('every difference is declared in docs/compatibility.md', () => {
    expectEveryDifferenceDeclared('render', found);
  });

  it('every declaration still matches a difference', () => {
    expectEveryDeclarationUsed('render', found);
  });
});
