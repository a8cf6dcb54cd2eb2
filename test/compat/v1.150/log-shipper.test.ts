/**
 * The OpenTelemetry Collector of the v1.150.0 reconcile OSC (gardenlet's `OpenTelemetryCollector`
 * gate at its default, on) against gardenlet v1.150.0's own render
 * (test/golden/render-v1.150/upstream-*.yaml, written by the oracle with node logging on): its
 * units and files in every pool, byte for byte.
 */
import { expect } from 'chai';
import { osCaBundleV150 } from '../../../charts/values/ca-bundle-v150.js';
import { openTelemetryCollectorIngressHost } from '../../../charts/values/otel-ingress-host.js';
import { openTelemetryCollector } from '../../../components/opentelemetry-collector/opentelemetry-collector.js';
import { reconcileOscs, UPSTREAM_CASES } from '../support/v150-pool-contents.js';
import { exampleValues } from '../support/v150-render.js';

/** `opentelemetry-collector` of the oracle's image vector. */
const IMAGE =
  'europe-docker.pkg.dev/gardener-project/releases/gardener/observability/opentelemetry-collector:v0.0.1';

describe("compat v1.150.0: the OpenTelemetry Collector against upstream's render", () => {
  for (const c of UPSTREAM_CASES) {
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
