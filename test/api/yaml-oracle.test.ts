/**
 * Differential test: our emitter against Go's sigs.k8s.io/yaml (hack/yaml-oracle) on thousands of
 * generated values biased towards what decides the layout: indicator characters, quotes, line
 * breaks, tabs, non-ASCII, YAML 1.1 look-alikes, long lines with spaces, keys with digit runs.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { parseYaml, stringifyYaml } from '../../api/yaml/codec.js';
import { goYamlKeyLess } from '../../api/yaml/go-yaml-key-order.js';
import { buildGoBinary } from '../../hack/prepare/go-binary.js';

const CHARS = [
  ...'abcXYZ019_-.:#/',
  ' ',
  ' ',
  ' ',
  '\n',
  '\t',
  '\r',
  "'",
  '"',
  '\\',
  '*',
  '&',
  '!',
  '|',
  '>',
  '%',
  '@',
  '`',
  '?',
  ',',
  '[',
  '{',
  '~',
  'é',
  '\u00a0',
  '\u2028',
  '\u{1F600}',
  '\u0000',
  '\u007f',
];
const LOOKALIKES = [
  '0',
  '007',
  '1.5',
  'true',
  'yes',
  'Y',
  'n',
  'null',
  '~',
  '',
  '2024-01-02',
  '1:20',
  '0x1F',
  '.inf',
  '+1',
  '1e3',
  '---',
  '...',
  '- a',
  '<<',
];

const tricky = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 24 }) },
  { weight: 1, arbitrary: fc.constantFrom(...LOOKALIKES) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.constantFrom('word', 'x', 'a:b', '#c', 'long-word-here'), { maxLength: 40 })
      .map((w) => w.join(' ')),
  },
);
const key = fc.oneof(fc.string({ unit: fc.constantFrom(...'aZ09_.-/ '), maxLength: 8 }), tricky);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(key, tie('node'), { maxKeys: 5 }),
  ),
})).node;

/** Whether go-yaml's key comparison orders every map of the value totally (else Go's order is random). */
function goKeyOrderIsFixed(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(goKeyOrderIsFixed);
  if (value === null || typeof value !== 'object') return true;
  const keys = Object.keys(value);
  for (const a of keys)
    for (const b of keys) if (a !== b && goYamlKeyLess(a, b) === goYamlKeyLess(b, a)) return false;
  for (const a of keys)
    for (const b of keys)
      for (const c of keys) {
        if (goYamlKeyLess(a, b) && goYamlKeyLess(b, c) && !goYamlKeyLess(a, c)) return false;
      }
  return Object.values(value).every(goKeyOrderIsFixed);
}

describe('YAML codec against Go (sigs.k8s.io/yaml)', function () {
  this.timeout(180_000);

  it('writes byte for byte what Go writes, for 3000 generated documents', () => {
    const oracle = buildGoBinary(join(import.meta.dirname, '../../hack/yaml-oracle'), 'yaml-oracle');
    const docs = fc.sample(fc.dictionary(key, value, { minKeys: 1, maxKeys: 6 }), {
      numRuns: 3000,
      seed: 20261129,
    });
    const input = docs.map((d) => JSON.stringify(d)).join('\n') + '\n';
    const output = execFileSync(oracle, { input, encoding: 'utf8', maxBuffer: 1 << 28 });
    const results = output
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { yaml?: string; error?: string });
    expect(results).to.have.length(docs.length);
    let compared = 0;
    for (const [i, doc] of docs.entries()) {
      const value = JSON.parse(JSON.stringify(doc));
      const ours = stringifyYaml(value);
      const go = results[i]!;
      if (go.yaml === undefined) {
        // Go refuses some control characters (its YAML reader rejects raw DEL); we escape them,
        // and what we write must still read back as the same value. Unicode line separators are
        // breaks to YAML 1.1 writers but content to our reader, and a `<<` key is a merge key to
        // every YAML 1.1 reader, Go's included: those documents prove nothing.
        if (!/[\u0085\u2028\u2029]|"<<"/.test(JSON.stringify(value))) {
          expect(parseYaml(ours), `document ${i}`).to.deep.equal(value);
        }
        continue;
      }
      // Where go-yaml's key comparison is cyclic, Go's order follows its random map iteration.
      if (!goKeyOrderIsFixed(value)) continue;
      compared++;
      expect(ours, `document ${i}: ${JSON.stringify(doc)}`).to.equal(go.yaml);
    }
    expect(compared, 'documents Go could write').to.be.greaterThan(docs.length * 0.7);
  });
});
