/**
 * How Go's decoders read bytes that are not valid UTF-8 (go-yaml's reader, encoding/json), the
 * expectations taken from upstream's answers for the same bytes (test/compat checks them live).
 */
import { expect } from 'chai';
import { goDocumentText, goJsonText, goYamlUtf8Problem, isJsonBuffer } from '../../api/index.js';

const b = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

describe('documents as Go decodes them (api/yaml/go-document-text)', () => {
  it('go-yaml: the first problem, in its words', () => {
    const cases: [Buffer, string | undefined][] = [
      [b('ok: café ✓ 𝄞'), undefined],
      [b('a: caf', [0xe9], '\n'), 'incomplete UTF-8 octet sequence'],
      [b('a: caf', [0xe9], '\nmore'), 'invalid trailing UTF-8 octet'],
      [b('a: ', [0xff]), 'invalid leading UTF-8 octet'],
      [b('a: ', [0x80]), 'invalid leading UTF-8 octet'],
      [b('a: ', [0xc0, 0x80]), 'invalid length of a UTF-8 sequence'],
      [b('a: ', [0xed, 0xa0, 0x80]), 'invalid Unicode character'],
      [b('a: ', [0xf4, 0x90, 0x80, 0x80]), 'invalid Unicode character'],
    ];
    for (const [bytes, problem] of cases)
      expect(goYamlUtf8Problem(bytes), bytes.toString('hex')).to.equal(problem);
  });

  it('encoding/json: one U+FFFD per invalid byte, valid sequences kept', () => {
    expect(goJsonText(b('"caf', [0xe9], '"'))).to.equal('"caf\uFFFD"');
    expect(goJsonText(b([0xe2, 0x82], 'x'))).to.equal('\uFFFD\uFFFDx');
    expect(goJsonText(b('é', [0xc0, 0x80], '€'))).to.equal('é\uFFFD\uFFFD€');
  });

  it('JSON is a buffer whose first non-blank byte is {', () => {
    expect(isJsonBuffer(b(' \n\t{"a":1}'))).to.equal(true);
    expect(isJsonBuffer(b('a: {}'))).to.equal(false);
    expect(isJsonBuffer(b('[1]'))).to.equal(false);
    expect(goDocumentText(b('{"a":"', [0xff], '"}'))).to.deep.equal({ ok: true, text: '{"a":"\uFFFD"}' });
    expect(goDocumentText(b('a: ', [0xff]))).to.deep.equal({
      ok: false,
      error: 'yaml: invalid leading UTF-8 octet',
    });
  });
});
