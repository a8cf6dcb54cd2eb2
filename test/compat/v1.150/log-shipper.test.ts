/**
 * The OpenTelemetry Collector of the v1.150.0 reconcile OSC (gardenlet's `OpenTelemetryCollector`
 * gate at its default, on) against gardenlet v1.150.0's own render
 * (test/golden/render-v1.150/upstream-*.yaml, written by the oracle with node logging on): its
 * units and files in every pool, byte for byte.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { type Cluster, decodeCluster, type OscFile, type OscUnit, parseYaml } from '../../../api/index.js';
import { osCaBundleV150 } from '../../../charts/values/ca-bundle-v150.js';
import { openTelemetryCollectorIngressHost } from '../../../charts/values/otel-ingress-host.js';
import { openTelemetryCollector } from '../../../components/opentelemetry-collector/opentelemetry-collector.js';
import { exampleCluster, exampleValues, referencePoolCluster } from '../support/v150-render.js';

interface UpstreamOsc {
  metadata: { name: string };
  spec: { units: OscUnit[]; files: OscFile[] };
}

const GOLDEN = join(import.meta.dirname, '../../golden/render-v1.150');
/** `opentelemetry-collector` of the oracle's image vector. */
const IMAGE =
  'europe-docker.pkg.dev/gardener-project/releases/gardener/observability/opentelemetry-collector:v0.0.1';

function reconcileOscs(file: string): UpstreamOsc[] {
  return readFileSync(join(GOLDEN, file), 'utf8')
    .split(/^---\n/m)
    .map((d) => parseYaml(d) as { kind?: string; metadata?: { name?: string } })
    .filter((d) => d.kind === 'OperatingSystemConfig' && d.metadata?.name?.endsWith('-original'))
    .map((d) => d as unknown as UpstreamOsc);
}

function decoded(input: unknown): Cluster {
  const result = decodeCluster(input);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

const CASES = [
  { file: 'upstream-reference-pool-seed.yaml', cluster: () => decoded(referencePoolCluster()) },
  { file: 'upstream-example-seed.yaml', cluster: () => decoded(exampleCluster()) },
];

describe("compat v1.150.0: the OpenTelemetry Collector against upstream's render", () => {
  for (const c of CASES) {
    for (const osc of reconcileOscs(c.file)) {
      it(`writes ${osc.metadata.name}'s collector units and files as upstream`, () => {
        const cluster = c.cluster();
        const values = exampleValues();
        const ours = openTelemetryCollector({
          enabled: values.nodeLogging ?? false,
          ingressHost: openTelemetryCollectorIngressHost(
            cluster.shoot.status?.technicalID ?? cluster.name,
            cluster.seed.spec.ingress?.domain ?? '',
          ),
          caBundle: osCaBundleV150(cluster.cloudProfile.spec.caBundle, values.caBundles.cluster, undefined),
          apiServerUrl: values.apiServerUrl,
          image: IMAGE,
        });
        const theirs = (name: string) => name.startsWith('opentelemetry-collector');
        expect(ours.units).to.deep.equal(osc.spec.units.filter((u) => theirs(u.name)));
        expect(ours.files).to.deep.equal(
          osc.spec.files.filter(
            (f) =>
              f.path.startsWith('/var/lib/opentelemetry-collector/') ||
              f.path === '/opt/bin/opentelemetry-collector',
          ),
        );
      });
    }
  }
});
