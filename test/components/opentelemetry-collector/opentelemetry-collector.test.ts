/** The OpenTelemetry Collector log shipper of the Gardener v1.150.0 contract. */
import { expect } from 'chai';
import { parseYaml } from '../../../api/index.js';
import { openTelemetryCollectorIngressHost } from '../../../charts/values/otel-ingress-host.js';
import { openTelemetryCollector } from '../../../components/opentelemetry-collector/opentelemetry-collector.js';
import { CA_BUNDLE, contentOf, fileAt, unitNamed } from '../support.js';
import { expectComponentGoldenV150 } from '../v150-golden.js';

const input = {
  enabled: true,
  ingressHost: 'otc-dev--demo.ingress.seed.example.com',
  caBundle: CA_BUNDLE,
  apiServerUrl: 'https://api.demo.dev.example.com',
  image: 'registry.example/opentelemetry-collector:v0.0.1',
};
const out = openTelemetryCollector(input);

describe('OpenTelemetry Collector of the v1.150.0 contract', () => {
  it('renders nothing when node logging is off', () => {
    expect(openTelemetryCollector({ ...input, enabled: false })).to.deep.equal({ units: [], files: [] });
  });

  it('refuses to render without an ingress host, as upstream', () => {
    expect(() => openTelemetryCollector({ ...input, ingressHost: '' })).to.throw('ingress url is missing');
  });

  it('ships to the ingress on 443 with the CA and the synced token', () => {
    const config = parseYaml(contentOf(fileAt(out, '/var/lib/opentelemetry-collector/config/config'))) as {
      exporters: { otlp: { endpoint: string; tls: { ca_file: string } } };
      extensions: { bearertokenauth: { filename: string } };
    };
    expect(config.exporters.otlp.endpoint).to.equal('otc-dev--demo.ingress.seed.example.com:443');
    expect(config.exporters.otlp.tls.ca_file).to.equal('/var/lib/opentelemetry-collector/ca.crt');
    expect(config.extensions.bearertokenauth.filename).to.equal(
      '/var/lib/opentelemetry-collector/auth-token',
    );
  });

  it('keeps its secrets to root: config and CA 0400, kubeconfig 0600, binary 0700', () => {
    expect(out.files.map((f) => [f.path, f.permissions])).to.deep.equal([
      ['/var/lib/opentelemetry-collector/config/config', 0o400],
      ['/var/lib/opentelemetry-collector/ca.crt', 0o400],
      ['/opt/bin/opentelemetry-collector', 0o700],
      ['/var/lib/opentelemetry-collector/kubeconfig', 0o600],
    ]);
  });

  it('starts only with a token, and caps Go memory at 80% of the collector limit', () => {
    const unit = unitNamed(out, 'opentelemetry-collector.service').content ?? '';
    expect(unit).to.contain('GOMEMLIMIT=1600MiB"');
    expect(unit).to.contain('ExecStartPre=/bin/sh -c "test -s /var/lib/opentelemetry-collector/auth-token"');
    expect(unitNamed(out, 'opentelemetry-collector-healthcheck.service').enable).to.equal(false);
    expect(unitNamed(out, 'opentelemetry-collector-healthcheck.timer').enable).to.equal(true);
  });

  it('names the ingress host after the short technical ID', () => {
    expect(openTelemetryCollectorIngressHost('shoot--dev--demo', 'ingress.example.com')).to.equal(
      'otc-dev--demo.ingress.example.com',
    );
  });

  it('matches its golden (decoded view)', () => {
    expectComponentGoldenV150('opentelemetry-collector', out);
  });
});
