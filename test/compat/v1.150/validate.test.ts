/**
 * Check 1 for the v1.150.0 contract: everything our v1.150.0 render writes, decoded strictly and
 * validated by Gardener v1.150.0's own code (the oracle's `validate` op): every OSC, the node
 * agent's configuration inside each, and the osc.yaml inside each shoot OSC secret, for the
 * example (examples/cluster-v1.150.yaml) as `gardener-osc render` writes it.
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { DEFAULT_NOW, render } from '../../../cli/render-command.js';
import type { JsonLinesOracle } from '../support/json-lines-oracle.js';
import { oracle150 } from '../support/oracle-150.js';
import {
  asDocument,
  type NamedDocument,
  nodeAgentConfigs,
  oscYamlOf,
  registryObjects,
} from '../support/rendered-documents.js';
import { useOracle150 } from '../support/use-oracle-150.js';

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents, read by path
type Json = any;

const EXAMPLES = join(import.meta.dirname, '../../../examples');

async function verdicts(o: JsonLinesOracle, docs: readonly NamedDocument[]): Promise<Map<string, string[]>> {
  const results = await o.ask<{ kind: string; errors: string[] }[]>('validate', {
    documents: docs.map((d) => d.text),
  });
  return new Map(docs.map((d, i) => [d.name, results[i]?.errors ?? ['no result']]));
}

describe('compat v1.150.0 check 1: our v1.150.0 render, decoded strictly and validated by Gardener v1.150.0', () => {
  useOracle150();
  const seed = () =>
    render({
      cluster: join(EXAMPLES, 'cluster-v1.150.yaml'),
      values: join(EXAMPLES, 'values.yaml'),
      target: 'seed',
      now: DEFAULT_NOW,
    }).objects as Json[];

  it('every OSC and every NodeAgentConfiguration in them passes', async () => {
    const oscs = seed().filter((o) => o.kind === 'OperatingSystemConfig');
    const docs = [...oscs.map(asDocument), ...oscs.flatMap(nodeAgentConfigs)];
    // three pools: an OSC pair each, and the agent's configuration in both OSCs of each
    expect(docs).to.have.length(12);
    for (const [name, errors] of await verdicts(oracle150(), docs)) expect(errors, name).to.deep.equal([]);
  });

  it("every osc.yaml decodes strictly; validation misses only what upstream's stripping leaves out", async () => {
    const docs = seed()
      .filter((o) => o.kind === 'Secret' && o.metadata.labels?.['managed-resource'])
      .flatMap(registryObjects)
      .map(oscYamlOf)
      .filter((d): d is NamedDocument => d !== undefined);
    expect(docs).to.have.length(3);
    for (const [name, errors] of await verdicts(oracle150(), docs))
      expect(errors, name).to.deep.equal([
        'metadata.name: Required value: name or generateName is required',
        'metadata.namespace: Required value',
        'spec.purpose: Required value: field is required',
      ]);
  });
});
