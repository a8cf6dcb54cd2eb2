import { expect } from 'chai';
import { semanticEqual } from '../../../node-agent/planner/semantic-equal.js';
import '../support/harness.js';

describe('node-agent planner: semanticEqual (Kubernetes semantic equality)', () => {
  it('treats missing, null, empty arrays and empty maps as equal', () => {
    for (const [a, b] of [
      [undefined, null],
      [undefined, []],
      [null, {}],
      [[], {}],
      [{ dropIns: [] }, {}],
      [{ filePaths: null }, { filePaths: undefined }],
      [{ a: { b: [] } }, { a: {} }],
    ] as const) {
      expect(semanticEqual(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).to.equal(true);
      expect(semanticEqual(b, a)).to.equal(true);
    }
  });

  it('compares arrays in order and scalars by value', () => {
    expect(semanticEqual(['a', 'b'], ['a', 'b'])).to.equal(true);
    expect(semanticEqual(['a', 'b'], ['b', 'a'])).to.equal(false);
    expect(semanticEqual(['a'], ['a', 'a'])).to.equal(false);
    expect(semanticEqual({ enable: false }, {})).to.equal(false);
    expect(semanticEqual({ content: '' }, {})).to.equal(false);
    expect(semanticEqual({ permissions: 0 }, { permissions: undefined })).to.equal(false);
    expect(semanticEqual({ a: 1, b: 2 }, { b: 2, a: 1 })).to.equal(true);
    expect(semanticEqual({ a: [{ x: 1 }] }, { a: [{ x: 2 }] })).to.equal(false);
  });
});
