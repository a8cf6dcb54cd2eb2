/**
 * Gardener v1.150.0's own rendering as readable reference files for the TypeScript v1.150
 * renderer to be compared against: test/golden/render-v1.150/upstream-*.yaml, the objects
 * gardenlet v1.150.0 writes into the seed, then their decoded view (as test/golden/render/*) and the
 * shoot objects inside the brotli-compressed ManagedResource secrets. They
 * are upstream's output, not ours: UPDATE_GOLDEN=1 rewrites them from the oracle.
 */
import { expect } from 'chai';
import { stringifyYaml } from '../../../api/index.js';
import { expectGolden } from '../../golden.js';
import { decodedView } from '../../support/decoded-view.js';
import { oracle150 } from '../support/oracle-150.js';
import { registryObjects } from '../support/rendered-documents.js';
import { useOracle150 } from '../support/use-oracle-150.js';
import { exampleCluster, referencePoolCluster, renderV150 } from '../support/v150-render.js';

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents
type Json = any;

/** A shoot Secret with its data as text (the osc.yaml gardenlet writes), else as it is. */
const readable = (o: Json): Json =>
  o.kind === 'Secret' && o.data
    ? {
        ...o,
        data: Object.fromEntries(
          Object.entries(o.data as Record<string, string>).map(([k, v]) => [
            k,
            Buffer.from(v, 'base64').toString('utf8'),
          ]),
        ),
      }
    : o;

/**
 * gardenlet adds a ManagedResource's secretRefs in Go map order (DeployManagedResourceForGardenerNodeAgent,
 * gardener v1.150.0 pkg/gardenlet/operation/botanist/operatingsystemconfig.go ranges over a map), so
 * their order changes from run to run; the file lists them by name.
 */
const stableSecretRefs = (o: Json): Json =>
  o.kind === 'ManagedResource'
    ? {
        ...o,
        spec: {
          ...o.spec,
          secretRefs: [...o.spec.secretRefs].sort((a: Json, b: Json) => a.name.localeCompare(b.name)),
        },
      }
    : o;

/** The objects, their decoded view, and the shoot objects inside each ManagedResource secret. */
function file(rendered: Json[]): string {
  const objects = rendered.map(stableSecretRefs);
  const managed = objects.filter((o) => o.kind === 'Secret' && o.metadata.labels?.['managed-resource']);
  const registries = Object.fromEntries(
    managed.map((o) => [`Secret ${o.metadata.name}`, registryObjects(o).map(readable)]),
  );
  return `${objects.map((o) => stringifyYaml(o)).join('---\n')}${decodedView(objects)}---\n${stringifyYaml({ 'managed resource objects': registries })}`;
}

describe('compat v1.150: upstream reference renderings (test/golden/render-v1.150/upstream-*.yaml)', () => {
  useOracle150();

  it('renders the example Cluster (examples/cluster.yaml with examples/values.yaml) as gardenlet v1.150.0 does', async function () {
    this.timeout(60_000);
    const seed = await renderV150(oracle150(), exampleCluster());
    expect(seed.filter((o) => o.kind === 'OperatingSystemConfig')).to.have.length(6);
    expectGolden('render-v1.150/upstream-example-seed.yaml', file(seed));
  });

  it('renders the reference pool (Kubernetes 1.34.1, worker-a) as gardenlet v1.150.0 does', async function () {
    this.timeout(60_000);
    const seed = await renderV150(oracle150(), referencePoolCluster());
    expect(seed.filter((o) => o.kind === 'OperatingSystemConfig')).to.have.length(2);
    expectGolden('render-v1.150/upstream-reference-pool-seed.yaml', file(seed));
  });
});
