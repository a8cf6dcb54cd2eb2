/**
 * The whole v1.150.0 render, as `gardener-osc render --gardener-version v1.150.0` writes it (the
 * CLI's own path: decoding, the contract's Kubernetes minors, the charts), against gardenlet
 * v1.150.0's own render of the same Cluster and values (the oracle's `render` op): every seed
 * object, the shoot objects inside the ManagedResource secrets, and the ManagedResource; with
 * gardenlet's `OpenTelemetryCollector` gate off (valitail) and with a registry CA too. Every
 * difference is declared with a V150 id in docs/compatibility.md, and every such declaration is
 * still needed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseYaml } from '../../../api/index.js';
import { renderSource } from '../../../cli/render-command.js';
import { compareSeedObjectsV150 } from '../support/compare-render-v150.js';
import { type Difference, Differences } from '../support/difference.js';
import { expectEveryDeclarationUsed, expectEveryDifferenceDeclared } from '../support/expect-declared.js';
import { oracle150 } from '../support/oracle-150.js';
import { useOracle150 } from '../support/use-oracle-150.js';
import {
  type ExampleValues,
  exampleValues,
  RENDER_NOW,
  referencePoolCluster,
  renderV150,
} from '../support/v150-render.js';

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents
type Json = any;

const EXAMPLE_V150 = join(import.meta.dirname, '../../../examples/cluster-v1.150.yaml');

/** A registry CA as gardenlet's image vector would carry it (`caBundle.inline`). */
const REGISTRY_CA = '-----BEGIN CERTIFICATE-----\ncmVnaXN0cnktY2E=\n-----END CERTIFICATE-----\n';

const CASES: {
  name: string;
  cluster: () => Json;
  values: () => ExampleValues;
  /** gardenlet's feature gates, as `--feature-gates` takes them. */
  featureGates?: Record<string, boolean>;
}[] = [
  {
    name: 'examples/cluster-v1.150.yaml',
    cluster: () => parseYaml(readFileSync(EXAMPLE_V150, 'utf8')),
    values: exampleValues,
  },
  {
    name: 'examples/cluster-v1.150.yaml without node logging',
    cluster: () => parseYaml(readFileSync(EXAMPLE_V150, 'utf8')),
    values: () => ({ ...exampleValues(), nodeLogging: false }),
  },
  {
    name: 'the reference pool (Kubernetes 1.34.1)',
    cluster: () => referencePoolCluster(),
    values: exampleValues,
  },
  {
    name: 'the reference pool on Kubernetes 1.32.0 and 1.36.0',
    cluster: () => {
      const cluster = referencePoolCluster('1.36.0');
      const pool = cluster.spec.shoot.spec.provider.workers[0];
      cluster.spec.shoot.spec.provider.workers.push({
        ...pool,
        name: 'worker-b',
        kubernetes: { version: '1.32.0' },
      });
      return cluster;
    },
    values: exampleValues,
  },
  {
    name: 'examples/cluster-v1.150.yaml with OpenTelemetryCollector=false (valitail)',
    cluster: () => parseYaml(readFileSync(EXAMPLE_V150, 'utf8')),
    values: exampleValues,
    featureGates: { OpenTelemetryCollector: false },
  },
  {
    name: 'the reference pool with OpenTelemetryCollector=false, without node logging',
    cluster: () => referencePoolCluster(),
    values: () => ({ ...exampleValues(), nodeLogging: false }),
    featureGates: { OpenTelemetryCollector: false },
  },
  {
    name: 'examples/cluster-v1.150.yaml with a registry CA',
    cluster: () => parseYaml(readFileSync(EXAMPLE_V150, 'utf8')),
    values: () => ({ ...exampleValues(), registryCaBundle: REGISTRY_CA }),
  },
];

describe('compat v1.150.0: the whole render against gardenlet v1.150.0 (the oracle)', () => {
  useOracle150();
  const found: Difference[] = [];
  let objects = 0;

  before(async function () {
    this.timeout(120_000);
    for (const c of CASES) {
      const values = c.values();
      const ours = renderSource({
        cluster: c.cluster(),
        clusterName: c.name,
        values,
        gardenerVersion: 'v1.150.0',
        target: 'seed',
        now: RENDER_NOW,
        ...(c.featureGates
          ? {
              featureGates: Object.entries(c.featureGates)
                .map(([gate, on]) => `${gate}=${on}`)
                .join(','),
            }
          : {}),
      });
      const upstream = await renderV150(oracle150(), c.cluster(), values, c.featureGates);
      objects += upstream.length;
      const d = new Differences('render-v1.150', c.name);
      compareSeedObjectsV150(d, ours.objects, upstream);
      found.push(...d.found);
    }
  });

  it('compares every object of every case', () => {
    // 3, 3, 1, 2, 3, 1 and 3 pools: an OSC pair and a ManagedResource secret each, plus the RBAC
    // secret and the ManagedResource
    expect(objects).to.equal(3 * (3 + 3 + 1 + 2 + 3 + 1 + 3) + 7 * 2);
  });

  it('every difference is declared in docs/compatibility.md', () => {
    expectEveryDifferenceDeclared('render-v1.150', found);
  });

  it('every v1.150 render declaration still matches a difference', () => {
    expectEveryDeclarationUsed('render-v1.150', found);
  });
});
