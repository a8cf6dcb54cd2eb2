/**
 * The two contracts exclude each other: Gardener v1.150.0 rejects what v1.91.4 renders, and
 * v1.91.4 rejects what v1.150.0 renders, each judged by its own code (strict decoding, then
 * validation; hack/gardener-oracle and hack/gardener-oracle-150).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { GOLDEN_DIR } from '../../golden.js';
import { useOracle } from '../support/expect-declared.js';
import type { JsonLinesOracle } from '../support/json-lines-oracle.js';
import { oracle } from '../support/oracle.js';
import { oracle150 } from '../support/oracle-150.js';
import {
  asDocument,
  goldenObjects,
  type NamedDocument,
  nodeAgentConfigs,
  oscYamlOf,
  registryObjects,
} from '../support/rendered-documents.js';
import { useOracle150 } from '../support/use-oracle-150.js';
import { referencePoolCluster, renderV150 } from '../support/v150-render.js';

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents, read by path
type Json = any;

/** Each document's validation errors, by its name. */
async function verdicts(o: JsonLinesOracle, docs: readonly NamedDocument[]): Promise<Map<string, string[]>> {
  const results = await o.ask<{ kind: string; errors: string[] }[]>('validate', {
    documents: docs.map((d) => d.text),
  });
  return new Map(docs.map((d, i) => [d.name, results[i]?.errors ?? ['no result']]));
}

const oscs = (objects: Json[]) => objects.filter((o) => o.kind === 'OperatingSystemConfig');
const byPurpose = (objects: Json[], suffix: string) =>
  oscs(objects).filter((o) => o.metadata.name.endsWith(suffix));
const shootOscYamls = (seed: Json[]): NamedDocument[] =>
  seed
    .filter((o) => o.kind === 'Secret' && /^managedresource-shoot-gardener-node-agent-/.test(o.metadata.name))
    .flatMap(registryObjects)
    .map(oscYamlOf)
    .filter((d): d is NamedDocument => d !== undefined);

describe('compat v1.150: the v1.91.4 contract (our reviewed goldens) judged by Gardener v1.150.0', () => {
  useOracle150();
  const seed = goldenObjects(readFileSync(join(GOLDEN_DIR, 'render/example-seed.yaml'), 'utf8'));
  const shoot = goldenObjects(readFileSync(join(GOLDEN_DIR, 'render/example-shoot.yaml'), 'utf8'));

  it('accepts the provision (-init) OSCs', async () => {
    const init = byPurpose(seed, '-init').map(asDocument);
    expect(init).to.have.length(3);
    for (const [name, errors] of await verdicts(oracle150(), init)) expect(errors, name).to.deep.equal([]);
  });

  it('rejects the reconcile (-original) OSCs and the shoot osc.yaml: unknown field "spec.reloadConfigFilePath"', async () => {
    const original = byPurpose(seed, '-original').map(asDocument);
    const oscYamls = shoot.map(oscYamlOf).filter((d): d is NamedDocument => d !== undefined);
    expect(original).to.have.length(3);
    expect(oscYamls).to.have.length(3);
    for (const [name, errors] of await verdicts(oracle150(), [...original, ...oscYamls])) {
      expect(errors.join('\n'), name).to.match(/^decode: .*unknown field "spec\.reloadConfigFilePath"/);
    }
  });

  it('rejects config.yaml of both OSCs: unknown fields apiServer.caBundle and …syncJitterPeriod', async () => {
    const configs = oscs(seed).flatMap(nodeAgentConfigs);
    expect(configs).to.have.length(6);
    for (const [name, errors] of await verdicts(oracle150(), configs)) {
      const text = errors.join('\n');
      expect(text, name).to.include('unknown field "apiServer.caBundle"');
      expect(text, name).to.include('unknown field "controllers.operatingSystemConfig.syncJitterPeriod"');
    }
  });
});

describe('compat v1.150: what Gardener v1.150.0 renders for the reference pool, judged by v1.150.0 and v1.91.4', () => {
  useOracle150();
  useOracle();
  let seed: Json[] = [];
  before(async function () {
    this.timeout(120_000);
    seed = await renderV150(oracle150(), referencePoolCluster());
  });

  it('passes its own validation: both OSCs and both NodeAgentConfigurations', async () => {
    const docs = [...oscs(seed).map(asDocument), ...oscs(seed).flatMap(nodeAgentConfigs)];
    expect(docs).to.have.length(4);
    for (const [name, errors] of await verdicts(oracle150(), docs)) expect(errors, name).to.deep.equal([]);
  });

  it('writes a stripped osc.yaml: it decodes strictly, and lacks only the metadata and purpose it leaves out', async () => {
    const docs = shootOscYamls(seed);
    expect(docs).to.have.length(1);
    for (const [name, errors] of await verdicts(oracle150(), docs))
      expect(errors, name).to.deep.equal([
        'metadata.name: Required value: name or generateName is required',
        'metadata.namespace: Required value',
        'spec.purpose: Required value: field is required',
      ]);
  });

  it('v1.91.4 accepts the -init OSC', async () => {
    for (const [name, errors] of await verdicts(oracle(), byPurpose(seed, '-init').map(asDocument)))
      expect(errors, name).to.deep.equal([]);
  });

  it('v1.91.4 rejects the -original OSC and osc.yaml: unknown fields spec.criConfig.cgroupDriver and .containerd', async () => {
    const docs = [...byPurpose(seed, '-original').map(asDocument), ...shootOscYamls(seed)];
    expect(docs).to.have.length(2);
    for (const [name, errors] of await verdicts(oracle(), docs)) {
      const text = errors.join('\n');
      expect(text, name).to.include('unknown field "spec.criConfig.cgroupDriver"');
      expect(text, name).to.include('unknown field "spec.criConfig.containerd"');
    }
  });

  it('v1.91.4 rejects both NodeAgentConfigurations: unknown fields apiServer.caFile and controllers.systemdUnitCheck', async () => {
    const configs = oscs(seed).flatMap(nodeAgentConfigs);
    expect(configs).to.have.length(2);
    for (const [name, errors] of await verdicts(oracle(), configs)) {
      const text = errors.join('\n');
      expect(text, name).to.include('unknown field "apiServer.caFile"');
      expect(text, name).to.include('unknown field "controllers.systemdUnitCheck"');
    }
  });

  it('v1.150.0 refuses its own NodeAgentConfiguration for Kubernetes 1.31: unsupported kubernetes version', async function () {
    this.timeout(60_000);
    const old = await renderV150(oracle150(), referencePoolCluster('1.31.4'));
    const configs = oscs(old).flatMap(nodeAgentConfigs);
    expect(configs).to.have.length(2);
    for (const [name, errors] of await verdicts(oracle150(), configs))
      expect(errors.join('\n'), name).to.include('unsupported kubernetes version');
  });
});
