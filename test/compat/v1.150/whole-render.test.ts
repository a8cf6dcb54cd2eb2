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
import { RENDER_CORPUS } from '../support/corpus.js';
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
    name: 'in-place pools (GEP-31) during credentials rotations',
    cluster: () => {
      const cluster = referencePoolCluster();
      const shoot = cluster.spec.shoot;
      const pool = shoot.spec.provider.workers[0];
      pool.updateStrategy = 'AutoInPlaceUpdate';
      shoot.spec.provider.workers.push(
        { ...pool, name: 'manual', updateStrategy: 'ManualInPlaceUpdate', kubernetes: { version: '1.33.4' } },
        { ...pool, name: 'rolling', updateStrategy: 'AutoRollingUpdate' },
      );
      shoot.status = {
        ...shoot.status,
        credentials: {
          rotation: {
            certificateAuthorities: {
              phase: 'Preparing',
              lastInitiationTime: '2026-11-30T10:00:00Z',
              pendingWorkersRollouts: [{ name: 'manual', lastInitiationTime: '2026-10-01T08:30:00Z' }],
            },
            serviceAccountKey: { phase: 'Completed', lastInitiationTime: '2026-09-15T12:00:00Z' },
          },
        },
      };
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
  ...corpusV150(),
];

/**
 * The v1.91.4 render corpus (test/compat/support/corpus.ts) in the v1.150.0 contract: its minors
 * moved into 1.32-1.36 (1.25 → 1.32, ..., 1.29 → 1.36), without the cases of the gate off or
 * legacy nodes, which v1.150.0 does not have.
 */
function corpusV150(): { name: string; cluster: () => Json; values: () => ExampleValues }[] {
  const minor = (v: string) => v.replace(/^1\.(2[5-9])\./, (_, m: string) => `1.${Number(m) + 7}.`);
  const bump = (o: Json): Json => {
    if (Array.isArray(o)) return o.map(bump);
    if (!o || typeof o !== 'object') return o;
    return Object.fromEntries(
      Object.entries(o).map(([k, v]) => [k, k === 'version' && typeof v === 'string' ? minor(v) : bump(v)]),
    );
  };
  return RENDER_CORPUS.filter(
    (c) => c.useGardenerNodeAgent && !c.legacyNodes && !c.name.startsWith('example'),
  ).map((c) => ({
    name: `corpus: ${c.name}`,
    cluster: () => {
      const cluster = bump(structuredClone(c.cluster));
      // machine image versions are not Kubernetes versions
      for (const w of cluster.spec.shoot.spec.provider.workers)
        if (w.machine?.image)
          w.machine.image.version = (c.cluster as Json).spec.shoot.spec.provider.workers.find(
            (x: Json) => x.name === w.name,
          ).machine.image.version;
      return cluster;
    },
    values: () => {
      const { nodeAgentIdentity: _, ...values } = c.values as Json;
      return { ...exampleValues(), ...values } as ExampleValues;
    },
  }));
}

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
    // 3, 3, 1, 2, 3, 3, 1, 3 pools and the corpus' 1, 2, 1, 2: an OSC pair and a ManagedResource
    // secret each, plus the RBAC secret and the ManagedResource per case (upstream's objects)
    expect(CASES).to.have.length(12);
    expect(objects).to.equal(3 * (3 + 3 + 1 + 2 + 3 + 3 + 1 + 3 + 1 + 2 + 1 + 2) + 12 * 2);
  });

  it('every difference is declared in docs/compatibility.md', () => {
    expectEveryDifferenceDeclared('render-v1.150', found);
  });

  it('every v1.150 render declaration still matches a difference', () => {
    expectEveryDeclarationUsed('render-v1.150', found);
  });
});
