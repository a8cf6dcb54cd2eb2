/**
 * `gardener-osc render --gardener-version v1.150.0` with gardenlet's `OpenTelemetryCollector` gate
 * off (valitail ships the node logs), a gate of the v1.150.0 contract only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseYaml } from '../../api/index.js';
import { DEFAULT_NOW, parseFeatureGates, renderSource } from '../../cli/render-command.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';

const CLUSTER_V150 = join(import.meta.dirname, '../../examples/cluster-v1.150.yaml');
const VALUES = join(import.meta.dirname, '../../examples/values.yaml');

// biome-ignore lint/suspicious/noExplicitAny: plain JSON documents
type Json = any;

const values = (): Json => parseYaml(readFileSync(VALUES, 'utf8'));

function render(o: { featureGates?: string; values?: Json; gardenerVersion?: string; cluster?: string }) {
  return renderSource({
    cluster: parseYaml(readFileSync(o.cluster ?? CLUSTER_V150, 'utf8')),
    clusterName: 'cluster test',
    values: o.values ?? values(),
    target: 'seed',
    now: DEFAULT_NOW,
    gardenerVersion: o.gardenerVersion ?? 'v1.150.0',
    ...(o.featureGates === undefined ? {} : { featureGates: o.featureGates }),
  });
}

const names = (objects: readonly Json[], kind: string) =>
  objects.filter((o) => o.kind === kind).map((o) => String(o.metadata.name));
const reconcileOscs = (objects: readonly Json[]) =>
  objects.filter((o) => o.kind === 'OperatingSystemConfig' && o.metadata.name.endsWith('-original'));

describe('render v1.150.0: the OpenTelemetryCollector gate', () => {
  it('parses the gate only when given', () => {
    expect(parseFeatureGates('OpenTelemetryCollector=false')).to.deep.equal({
      useGardenerNodeAgent: true,
      openTelemetryCollector: false,
    });
    expect(parseFeatureGates(undefined)).to.deep.equal({ useGardenerNodeAgent: true });
  });

  it('ships the node logs with valitail when the gate is off, with its shoot-access secret', () => {
    const on = render({}).objects;
    const off = render({ featureGates: 'OpenTelemetryCollector=false' }).objects;
    expect(names(on, 'Secret')).to.include('shoot-access-opentelemetry-collector');
    expect(names(off, 'Secret')).to.include('shoot-access-valitail');
    expect(names(off, 'Secret')).not.to.include('shoot-access-opentelemetry-collector');
    for (const osc of reconcileOscs(off)) {
      const units = (osc.spec.units as Json[]).map((u) => u.name);
      expect(units).to.include('valitail.service');
      expect(units.filter((u: string) => u.startsWith('opentelemetry-collector'))).to.deep.equal([]);
    }
    for (const osc of reconcileOscs(on))
      expect((osc.spec.units as Json[]).map((u) => u.name)).not.to.include('valitail.service');
  });

  it('renders no log shipper with the gate off and node logging off', () => {
    const off = render({
      featureGates: 'OpenTelemetryCollector=false',
      values: { ...values(), nodeLogging: false },
    });
    expect(names(off.objects, 'Secret').filter((n) => n.startsWith('shoot-access-'))).to.deep.equal([]);
    for (const osc of reconcileOscs(off.objects))
      expect((osc.spec.units as Json[]).map((u) => u.name)).not.to.include('valitail.service');
  });

  it('refuses the gate in v1.91.4 mode, naming it', () => {
    expect(() =>
      render({
        featureGates: 'OpenTelemetryCollector=false',
        gardenerVersion: 'v1.91.4',
        cluster: join(import.meta.dirname, '../../examples/cluster.yaml'),
      }),
    )
      .to.throw(UsageError)
      .with.property('message')
      .that.contains('OpenTelemetryCollector is a feature gate of gardenlet v1.150.0');
  });
});
