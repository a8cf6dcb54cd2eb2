import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { CRD_FILES, renderCrdFile } from '../../api/crds.js';
import { parseYaml } from '../../api/yaml/codec.js';

const CRD_DIR = join(import.meta.dirname, '../../hack/crds');

type Schema = {
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  type?: string;
} & Record<string, unknown>;

function load(name: string): {
  spec: { scope: string; versions: { subresources?: unknown; schema: { openAPIV3Schema: Schema } }[] };
} {
  return parseYaml(readFileSync(join(CRD_DIR, name), 'utf8')) as never;
}

/** Walks `spec.files[].content.inline` style paths through properties and items. */
function at(schema: Schema, path: string): Schema {
  let s = schema;
  for (const part of path.split('.')) {
    const [name, array] = part.endsWith('[]') ? [part.slice(0, -2), true] : [part, false];
    const next = s.properties?.[name];
    if (!next) throw new Error(`no property ${name} in ${path}`);
    s = array ? next.items! : next;
  }
  return s;
}

describe('CRDs (hack/crds)', () => {
  for (const name of Object.keys(CRD_FILES)) {
    it(`${name} is up to date with api/ (npm run generate:crds)`, () => {
      expect(readFileSync(join(CRD_DIR, name), 'utf8')).to.equal(renderCrdFile(name));
    });
  }

  // Written by hand from the specs, independent of the generator, which cannot check itself.
  describe('carry the rules of the specs', () => {
    const osc = load('operatingsystemconfigs.yaml').spec;
    const oscRoot = osc.versions[0]!.schema.openAPIV3Schema;
    const cluster = load('clusters.yaml').spec;
    const clusterRoot = cluster.versions[0]!.schema.openAPIV3Schema;
    const mr = load('managedresources.yaml').spec;
    const mrRoot = mr.versions[0]!.schema.openAPIV3Schema;

    const required: [Schema, string, string[]][] = [
      [oscRoot, 'spec', ['type', 'purpose']],
      [oscRoot, 'spec.units[]', ['name']],
      [oscRoot, 'spec.units[].dropIns[]', ['name', 'content']],
      [oscRoot, 'spec.files[]', ['path', 'content']],
      [oscRoot, 'spec.files[].content.inline', ['encoding', 'data']],
      [oscRoot, 'spec.files[].content.secretRef', ['name', 'dataKey']],
      [oscRoot, 'spec.files[].content.imageRef', ['image', 'filePathInImage']],
      [oscRoot, 'spec.criConfig', ['name']],
      [oscRoot, 'status.cloudConfig.secretRef', ['name']],
      [oscRoot, 'status.extensionUnits[]', ['name']],
      [oscRoot, 'status.extensionFiles[]', ['path', 'content']],
      [clusterRoot, 'spec', ['cloudProfile', 'seed', 'shoot']],
      [mrRoot, 'spec', ['secretRefs']],
      [mrRoot, 'spec.secretRefs[]', ['name']],
    ];
    for (const [root, path, fields] of required) {
      it(`${path} requires ${fields.join(', ')}`, () => {
        expect(at(root, path).required ?? []).to.have.members(fields);
      });
    }

    it('allows only the spec values for purpose, command and encoding', () => {
      expect(at(oscRoot, 'spec.purpose').enum).to.have.members(['provision', 'reconcile']);
      expect(at(oscRoot, 'spec.units[].command').enum).to.have.members(['start', 'restart', 'stop']);
      expect(at(oscRoot, 'spec.files[].content.inline.encoding').enum).to.have.members(['', 'b64']);
      expect(at(oscRoot, 'spec.files[].permissions').type).to.equal('integer');
    });

    it('preserves unknown fields of raw and embedded objects', () => {
      for (const [root, path] of [
        [oscRoot, 'spec.providerConfig'],
        [clusterRoot, 'spec.cloudProfile'],
        [clusterRoot, 'spec.seed'],
        [clusterRoot, 'spec.shoot'],
      ] as const) {
        expect(at(root, path), path).to.include({
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
        });
      }
    });

    it('have status subresources and the upstream scopes', () => {
      for (const crd of [osc, cluster, mr])
        expect(crd.versions[0]!.subresources).to.deep.equal({ status: {} });
      expect([osc.scope, cluster.scope, mr.scope]).to.deep.equal(['Namespaced', 'Cluster', 'Namespaced']);
    });
  });
});
