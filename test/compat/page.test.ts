import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { COMPAT_PAGE, declaredRows } from './support/compat-page.js';
import { DECLARATIONS } from './support/declarations.js';

describe('compat: docs/compatibility.md is the one list of differences', () => {
  it('every checked declaration names a row of the page, by its id', () => {
    const rows = declaredRows();
    const missing = [...new Set(DECLARATIONS.map((d) => d.id))].filter((id) => !rows.has(id));
    expect(missing, 'ids checked by test/compat but missing on docs/compatibility.md').to.deep.equal([]);
  });

  it('reads ids from table rows and refuses an id declared twice', () => {
    const rows = declaredRows(
      '| # | Area |\n|---|---|\n| 7 | a | b |\n| N2 | c |\n| V150-3 | d |\ntext | 9 |\n',
    );
    expect([...rows.keys()]).to.deep.equal(['7', 'N2', 'V150-3']);
    expect(() => declaredRows('| 1 | a |\n| 1 | b |\n')).to.throw('declares the id 1 twice');
  });

  it('reads the declarations of the v1.150.0 contract', () => {
    expect(declaredRows().has('V150-2')).to.equal(true);
  });

  it('names the baseline version and how to run the oracle alone', () => {
    const page = readFileSync(COMPAT_PAGE, 'utf8');
    expect(page).to.contain('Gardener v1.91.4');
    expect(page).to.contain('npm run test:compat');
  });
});
