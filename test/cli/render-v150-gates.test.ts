/**
 * `gardener-osc render --gardener-version v1.150.0` with gardenlet's `OpenTelemetryCollector` gate
 * off (valitail ships the node logs) and with a registry CA in the values; both are parts of the
 * v1.150.0 contract only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { expect } from 'chai';
import { parseYaml, stringifyYaml } from '../../api/index.js';
import {
  DEFAULT_NOW,
  parseFeatureGates,
  REGISTRY_CA_NOT_IN_V191,
  renderSource,
} from '../../cli/render-command.js';
import { decodeObject } from '../../cli/render-decode.js';
import { UsageError } from '../../runtime/cli/exit-codes.js';
import { referencePoolCluster } from '../compat/support/v150-render.js';
import { expectGolden } from '../golden.js';

const CLUSTER_V150 = join(import.meta.dirname, '../../examples/cluster-v1.150.yaml');
const VALUES = join(import.meta.dirname, '../../examples/values.yaml');
const REGISTRY_CA = '-----BEGIN CERTIFICATE-----\ncmVnaXN0cnktY2E=\n-----END CERTIFICATE-----\n';

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

describe('render v1.150.0: a registry CA', () => {
  const withCa: Json[] = render({ values: { ...values(), registryCaBundle: REGISTRY_CA } }).objects;
  const without: Json[] = render({}).objects;

  it('writes registry-ca.crt and registry-ca.pem into every reconcile OSC', () => {
    for (const osc of reconcileOscs(withCa)) {
      const paths = (osc.spec.files as Json[]).map((f) => f.path);
      expect(paths).to.include.members([
        '/var/lib/ca-certificates-local/registry-ca.crt',
        '/etc/pki/trust/anchors/registry-ca.pem',
      ]);
    }
    for (const osc of reconcileOscs(without))
      expect((osc.spec.files as Json[]).map((f) => f.path)).not.to.include(
        '/var/lib/ca-certificates-local/registry-ca.crt',
      );
  });

  it('puts the ConfigMap node init reads, with its Role and RoleBinding, into the ManagedResource', () => {
    const secret = withCa.find(
      (o) =>
        o.kind === 'Secret' &&
        String(o.metadata.name).startsWith('managedresource-shoot-gardener-node-agent-registry-ca-bundle-'),
    );
    expect(secret, 'the registry CA secret').to.not.equal(undefined);
    const text = brotliDecompressSync(Buffer.from(secret.data['data.yaml.br'], 'base64')).toString('utf8');
    const docs = text.split(/^---\n/m).map((t) => parseYaml(t) as Json);
    expect(docs.map((d) => `${d.kind} ${d.metadata.namespace}/${d.metadata.name}`)).to.deep.equal([
      'ConfigMap kube-system/registry-ca-bundle',
      'Role kube-system/registry-ca-bundle',
      'RoleBinding kube-system/registry-ca-bundle',
    ]);
    expect(Buffer.from(docs[0].data['bundle.crt'], 'base64').toString('utf8')).to.equal(REGISTRY_CA);
    const mr = withCa.find((o) => o.kind === 'ManagedResource');
    expect((mr.spec.secretRefs as Json[]).map((r) => r.name)).to.include(secret.metadata.name);
    expect(without.some((o) => String(o.metadata.name).includes('registry-ca-bundle'))).to.equal(false);
  });

  it('is ignored with a warning in v1.91.4 mode, which has no registry CA', () => {
    const cluster = join(import.meta.dirname, '../../examples/cluster.yaml');
    const v191 = render({
      gardenerVersion: 'v1.91.4',
      cluster,
      values: { ...values(), registryCaBundle: REGISTRY_CA },
    });
    const plain = render({ gardenerVersion: 'v1.91.4', cluster });
    expect(v191.warnings).to.include(REGISTRY_CA_NOT_IN_V191);
    expect(JSON.stringify(v191.objects)).to.equal(JSON.stringify(plain.objects));
  });
});

describe('render v1.150.0: the reference pool with a registry CA (golden file)', () => {
  it('writes the review form (render-v1.150/reference-pool-registry-ca-seed-decoded.yaml)', () => {
    const result = renderSource({
      cluster: referencePoolCluster(),
      clusterName: 'the reference pool',
      values: { ...values(), registryCaBundle: REGISTRY_CA },
      target: 'seed',
      now: DEFAULT_NOW,
      gardenerVersion: 'v1.150.0',
    });
    expect(result.warnings).to.deep.equal([]);
    expectGolden(
      'render-v1.150/reference-pool-registry-ca-seed-decoded.yaml',
      result.objects.map((o) => stringifyYaml(decodeObject(o))).join('---\n'),
    );
  });
});
