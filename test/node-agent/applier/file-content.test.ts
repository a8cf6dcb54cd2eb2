import { expect } from 'chai';
import fc from 'fast-check';
import { base64Problem, inlineBytes } from '../../../node-agent/applier/file-content.js';

/** The grammar as a regular expression: right on small inputs, a stack overflow on large ones. */
const GRAMMAR = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

describe('node-agent inline file content', () => {
  it('accepts exactly standard padded base64, line breaks ignored', () => {
    const chars = fc.constantFrom(...'ABab09+/=\n\r-_ é'.split(''));
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 24 }), (cs) => {
        const data = cs.join('');
        expect(base64Problem(data) === undefined, JSON.stringify(data)).to.equal(
          GRAMMAR.test(data.replace(/[\r\n]/g, '')),
        );
      }),
      { numRuns: 5000 },
    );
  });

  it('checks and decodes a 12 MB file (76-column lines) without running out of stack', () => {
    const bytes = Buffer.alloc(12 * 1024 * 1024, 7);
    const data = bytes.toString('base64').replace(/.{76}/g, '$&\n');
    expect(base64Problem(data)).to.equal(undefined);
    expect(inlineBytes({ encoding: 'b64', data }).equals(bytes)).to.equal(true);
    expect(base64Problem(`${data}!`)).to.match(/not valid/);
  });
});
