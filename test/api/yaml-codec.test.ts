import { expect } from 'chai';
import fc from 'fast-check';
import { secretChecksum, sha256Hex } from '../../api/checksum.js';
import {
  parseYaml,
  parseYamlDocuments,
  stringifyYaml,
  stringifyYamlDocuments,
  YamlSyntaxError,
} from '../../api/yaml/codec.js';
import { compareGoYamlKeys } from '../../api/yaml/go-yaml-key-order.js';

describe('YAML codec', () => {
  describe('layout like sigs.k8s.io/yaml', () => {
    it('sorts every key, writes sequences unindented and empty collections in flow style', () => {
      const out = stringifyYaml({
        kind: 'X',
        apiVersion: 'v1',
        spec: { list: [{ b: 1, a: 2 }, 'c'], empty: {}, none: [], nil: null },
      });
      expect(out).to.equal(
        [
          'apiVersion: v1',
          'kind: X',
          'spec:',
          '  empty: {}',
          '  list:',
          '  - a: 2',
          '    b: 1',
          '  - c',
          '  nil: null',
          '  none: []',
          '',
        ].join('\n'),
      );
    });

    it('sorts keys the go-yaml way: digit runs by value, non-letters before letters', () => {
      const keys = ['x10', 'x9', 'aB', 'a_b', 'a.b', 'b', 'A', 'x09'];
      expect([...keys].sort(compareGoYamlKeys)).to.deep.equal([
        'A',
        'a.b',
        'a_b',
        'aB',
        'b',
        'x9',
        'x09',
        'x10',
      ]);
      expect(stringifyYaml({ x10: 1, x9: 2 })).to.equal('x9: 2\nx10: 1\n');
    });

    it('quotes strings that YAML 1.1 would read as another type', () => {
      const out = stringifyYaml({
        a: '0',
        b: 'true',
        c: 'y',
        d: '',
        e: '0644',
        f: '1.5',
        g: '2024-01-01T00:00:00Z',
        h: '1:20',
        i: 'null',
        j: '~',
        k: '.5',
        l: '1e3',
        m: 'yes please',
      });
      expect(out).to.equal(
        'a: "0"\nb: "true"\nc: "y"\nd: ""\ne: "0644"\nf: "1.5"\ng: "2024-01-01T00:00:00Z"\nh: "1:20"\n' +
          'i: "null"\nj: "~"\nk: ".5"\nl: "1e3"\nm: yes please\n',
      );
    });

    it('single-quotes strings that start with an indicator, double-quotes control characters', () => {
      expect(
        stringifyYaml({
          a: '*x',
          b: '- x',
          c: "it's",
          d: 'a: b',
          e: '#c',
          f: ' lead',
          g: 'tab\there',
          h: 'é',
        }),
      ).to.equal("a: '*x'\nb: '- x'\nc: it's\nd: 'a: b'\ne: '#c'\nf: ' lead'\ng: \"tab\\there\"\nh: é\n");
      expect(stringifyYaml({ emoji: '\u{1F600}', bell: '\u0007' })).to.equal(
        'bell: "\\a"\nemoji: "\\U0001F600"\n',
      );
    });

    it('writes multi-line strings as literal blocks with the chomping indicator Go uses', () => {
      expect(stringifyYaml({ a: 'x\ny' })).to.equal('a: |-\n  x\n  y\n');
      expect(stringifyYaml({ a: 'x\ny\n' })).to.equal('a: |\n  x\n  y\n');
      expect(stringifyYaml({ a: 'x\n\n', b: 1 })).to.equal('a: |+\n  x\n\nb: 1\n');
      expect(stringifyYaml({ a: ' x\ny' })).to.equal('a: |2-\n   x\n  y\n');
      expect(stringifyYaml({ a: 'x\n\ny' })).to.equal('a: |-\n  x\n\n  y\n');
      // a space before a line break forbids block style: go-yaml falls back to a double-quoted scalar
      expect(stringifyYaml({ a: 'x \ny' })).to.equal('a: "x \\ny"\n');
      expect(stringifyYaml({ l: ['a\nb'] })).to.equal('l:\n- |-\n  a\n  b\n');
    });

    it('folds long scalars with spaces at column 80, as go-yaml v2 does', () => {
      const words = Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ');
      expect(stringifyYaml({ key: words })).to.equal(
        'key: word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12\n' +
          '  word13 word14 word15 word16 word17 word18 word19\n',
      );
      expect(stringifyYaml({ nested: { key: `#${words}` } })).to.equal(
        "nested:\n  key: '#word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11\n" +
          "    word12 word13 word14 word15 word16 word17 word18 word19'\n",
      );
      // without spaces nothing can fold (base64 data, checksums)
      const long = 'x'.repeat(200);
      expect(stringifyYaml({ key: long })).to.equal(`key: ${long}\n`);
    });

    it('never writes anchors, even for shared sub-objects', () => {
      const labels = { app: 'x' };
      const out = stringifyYaml({ a: { labels }, b: { labels }, c: [labels, labels] });
      expect(out).not.to.match(/[&*]a\d/);
      expect(out).to.equal('a:\n  labels:\n    app: x\nb:\n  labels:\n    app: x\nc:\n- app: x\n- app: x\n');
    });

    it('writes numbers as Go does after the JSON round trip', () => {
      expect(stringifyYaml({ i: 420, f: 0.5, big: 1234567.5, tiny: 0.00001, neg: -3 })).to.equal(
        'big: 1.2345675e+06\nf: 0.5\ni: 420\nneg: -3\ntiny: 1e-05\n',
      );
    });

    it('joins documents with ---', () => {
      expect(stringifyYamlDocuments([{ a: 1 }, { b: 2 }])).to.equal('a: 1\n---\nb: 2\n');
      expect(parseYamlDocuments('a: 1\n---\n---\nb: 2\n')).to.deep.equal([{ a: 1 }, { b: 2 }]);
    });
  });

  describe('bytes that names and checksums derive from', () => {
    it('S-TV-22: the osc.yaml of a minimal reconcile OSC has the checksum gardenlet computes', () => {
      const osc = {
        apiVersion: 'extensions.gardener.cloud/v1alpha1',
        kind: 'OperatingSystemConfig',
        metadata: { name: 'worker1-original', creationTimestamp: null },
        spec: {
          purpose: '',
          type: '',
          units: [{ name: 'w1u1' }, { name: 'w1u2' }],
          files: [
            { path: 'w1f1', content: {} },
            { path: 'w1f2', content: {} },
          ],
        },
        status: {},
      };
      expect(sha256Hex(stringifyYaml(osc))).to.equal(
        '09bae1b0b2b97bb8be93025841e4223c41800dba14e09363020ea3116dbe2c7c',
      );
    });

    it('S-TV-21: a legacy executor secret serialises to the bytes that name its ManagedResource secret', () => {
      // The script is base64 inside the Secret, so no scalar has spaces and go-yaml's folding at
      // column 80 cannot apply: the checksum depends on key order, quoting and layout only.
      const script =
        'w1content_500_europe-docker.pkg.dev/gardener-project/releases/hyperkube:v1.2.3_1.2.3_nil_/foo_[w1u1 w1u2]_[w1f1 w1f2]';
      const name = 'cloud-config-worker1-77ac3';
      const secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name,
          namespace: 'kube-system',
          creationTimestamp: null,
          annotations: { 'checksum/data-script': secretChecksum({ script }) },
          labels: { 'gardener.cloud/role': 'cloud-config', 'worker.gardener.cloud/pool': 'worker1' },
        },
        data: { script: Buffer.from(script).toString('base64') },
      };
      const data = { [`secret__kube-system__${name}.yaml`]: stringifyYaml(secret) };
      const mrSecretName = `managedresource-shoot-cloud-config-execution-worker1-${secretChecksum(data).slice(0, 8)}`;
      expect(mrSecretName).to.equal('managedresource-shoot-cloud-config-execution-worker1-4ba77085');
      expect(`reference.resources.gardener.cloud/secret-${sha256Hex(mrSecretName).slice(0, 8)}`).to.equal(
        'reference.resources.gardener.cloud/secret-99da0a78',
      );
    });
  });

  describe('reading', () => {
    it('reads YAML 1.1 scalars as Go does and keeps timestamps as strings', () => {
      expect(parseYaml('mode: 0644\nflag: yes\nwhen: 2024-01-01T00:00:00Z\n')).to.deep.equal({
        mode: 420,
        flag: true,
        when: '2024-01-01T00:00:00Z',
      });
    });

    it('reads JSON', () => {
      expect(parseYaml('{"a": [1, "b"]}')).to.deep.equal({ a: [1, 'b'] });
    });

    it('reports syntax errors with their position', () => {
      try {
        parseYaml('a: [1, 2\nb: c\n');
        expect.fail('no error');
      } catch (e) {
        expect(e).to.be.instanceOf(YamlSyntaxError);
        expect((e as YamlSyntaxError).line).to.be.a('number');
      }
    });

    it('reads a __proto__ key as data, never as a prototype', () => {
      const value = parseYaml('__proto__: {polluted: true}\n') as Record<string, unknown>;
      expect(Object.getPrototypeOf(value)).to.equal(Object.prototype);
      expect(Object.keys(value)).to.deep.equal(['__proto__']);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      expect(stringifyYaml(value)).to.equal('__proto__:\n  polluted: true\n');
    });

    it('rejects duplicate keys', () => {
      expect(() => parseYaml('a: 1\na: 2\n')).to.throw(YamlSyntaxError);
    });
  });

  describe('properties', () => {
    const json = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

    it('parse -> serialise -> parse is the identity', () => {
      fc.assert(
        fc.property(json, (value) => {
          const once = parseYaml(stringifyYaml(value));
          expect(once).to.deep.equal(value);
          expect(stringifyYaml(once)).to.equal(stringifyYaml(value));
        }),
        { numRuns: 400 },
      );
    });

    it('the key order of the input never changes the output bytes', () => {
      const record = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
        maxKeys: 8,
      });
      fc.assert(
        fc.property(record, fc.infiniteStream(fc.nat()), (rec, seeds) => {
          const entries = Object.entries(rec);
          const shuffled = entries
            .map((e) => ({ e, k: seeds.next().value as number }))
            .sort((a, b) => a.k - b.k)
            .map(({ e }) => e);
          expect(stringifyYaml(Object.fromEntries(shuffled))).to.equal(stringifyYaml(rec));
        }),
        { numRuns: 300 },
      );
    });
  });
});
