/**
 * The controller-manager's ControllerDeployment: its Helm chart, rendered by Helm itself as gardenlet
 * v1.91 renders it (hack/chart-renderer: Helm v3.14.3, values merged with what gardenlet adds, the
 * release in `extension-<installation>`), gives exactly the objects `gardener-osc manifests` prints
 * for the same configuration, image, replicas and priority class; and both Gardener objects pass
 * gardener-apiserver's rules.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { parseYaml, validateGardenerCoreObject } from '../../api/index.js';
import { controllerManagerObjects } from '../../charts/controller-manager/controller-manager.js';
import { controllerRegistrationObjects } from '../../charts/controller-manager/controller-registration.js';
import { chartArchive } from '../../charts/controller-manager/helm-chart.js';
import { loadControllerManagerConfiguration } from '../../cli/controller-manager-command.js';
import { podConfiguration } from '../../cli/manifests-command.js';
import { buildGoBinary } from '../../hack/prepare/go-binary.js';
import { parseControllerManagerConfiguration } from '../../seed/manager/config.js';
import { ROOT } from '../support/package-build.js';

const NAMESPACE = 'extension-gardener-osc-x7k2p';

/** What gardenlet mixes into every extension chart's values (controllerinstallation reconciler). */
const GARDENER_VALUES = {
  gardener: {
    version: 'v1.91.4',
    garden: { clusterIdentity: 'garden', genericKubeconfigSecretName: 'generic-garden-kubeconfig-81fb3a88' },
    seed: {
      name: 'aws-eu1',
      clusterIdentity: 'seed-aws-eu1',
      provider: 'aws',
      region: 'eu-west-1',
      spec: {},
    },
    gardenlet: { featureGates: { DefaultSeccompProfile: true } },
  },
};

function key(o: Record<string, unknown>): string {
  const m = o.metadata as { name: string };
  return `${o.kind}/${m.name}`;
}

describe('controller-manager Helm chart, rendered by Helm as gardenlet does', function () {
  this.timeout(120_000);
  let renderer: string;

  before(function () {
    this.timeout(600_000);
    renderer = buildGoBinary(join(ROOT, 'hack/chart-renderer'), 'chart-renderer');
  });

  function helmRender(providerConfig: { chart: string; values: Record<string, unknown> }) {
    const out = execFileSync(renderer, ['--release', 'gardener-osc', '--namespace', NAMESPACE], {
      input: JSON.stringify({
        chart: providerConfig.chart,
        values: { ...providerConfig.values, ...GARDENER_VALUES },
      }),
      encoding: 'utf8',
    });
    return (JSON.parse(out) as { name: string; content: string }[]).map((m) => ({
      file: m.name,
      object: parseYaml(m.content) as Record<string, unknown>,
    }));
  }

  const exampleConfig = podConfiguration(
    loadControllerManagerConfiguration(join(ROOT, 'examples/controller-manager.yaml')),
  );
  const parse = (text: string) => {
    const parsed = parseControllerManagerConfiguration(text);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return podConfiguration(parsed.value);
  };
  const otherAuthorizer = parse(
    'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: ControllerManagerConfiguration\nclusterSelector:\n  matchLabels:\n    x: "true"\nnodeAgent:\n  authorizer:\n    port: 9443\n    certFile: /srv/tls/serving.pem\n    keyFile: /srv/tls/serving-key.pem\n    tokenKeyFile: /srv/tls/caller-token.key\n',
  );
  const minimal = parseControllerManagerConfiguration(
    'apiVersion: node-configuration.gardener.cloud/v1alpha1\nkind: ControllerManagerConfiguration\nclusterSelector:\n  matchLabels:\n    x: "true"\nnodeAgent:\n  identity: serviceAccount\nserver:\n  metrics:\n    port: 9443\n  healthProbes:\n    port: 9444\nleaderElection:\n  name: "osc-leader"\n',
  );
  if (!minimal.ok) throw new Error(JSON.stringify(minimal.errors));
  const cases = [
    {
      what: 'the example, two replicas, a priority class',
      config: exampleConfig,
      replicas: 2,
      priorityClassName: 'gardener-system-900',
      image: 'europe-docker.pkg.dev/gardener-project/releases/gardener-osc:v0.1.0',
      vpa: true,
    },
    {
      what: "the node agent authorizer on another port, its certificate's files elsewhere",
      config: otherAuthorizer,
      replicas: 3,
      image: 'registry.example.org/osc:v2',
      vpa: true,
    },
    {
      what: 'v1.91 identities (no authorizer), other ports and lease, one replica, no priority class, an image by digest',
      config: podConfiguration(minimal.value),
      replicas: 1,
      image: `registry.example.org/osc@sha256:${'ab'.repeat(32)}`,
      vpa: false,
    },
  ];

  for (const c of cases) {
    it(`gives exactly what manifests prints: ${c.what}`, () => {
      const [deployment, registration] = controllerRegistrationObjects({
        ...c,
        vpa: { enabled: c.vpa },
        osLocalTypes: ['gardenlinux'],
      });
      expect(validateGardenerCoreObject(deployment)).to.deep.equal([]);
      expect(validateGardenerCoreObject(registration)).to.deep.equal([]);
      const rendered = helmRender(
        (deployment as { providerConfig: { chart: string; values: Record<string, unknown> } }).providerConfig,
      );
      const expected = controllerManagerObjects({ namespace: NAMESPACE, ...c });
      expect(rendered.map((r) => key(r.object)).sort()).to.deep.equal(expected.map(key).sort());
      for (const want of expected) {
        const got = rendered.find((r) => key(r.object) === key(want))!;
        expect(got.object, key(want)).to.deep.equal(JSON.parse(JSON.stringify(want)));
        const authorizerOwn = key(want) === 'Service/gardener-osc-controller-manager-authorizer';
        expect(got.file).to.equal(
          `gardener-osc-controller-manager/templates/${String(want.kind).toLowerCase()}${authorizerOwn ? '-authorizer' : ''}.yaml`,
        );
      }
    });
  }

  it('packs the same chart into the same bytes', () => {
    const values = { image: 'x', replicas: 2, config: exampleConfig };
    expect(chartArchive(values).equals(chartArchive(values))).to.equal(true);
    expect(chartArchive({ ...values, replicas: 3 }).equals(chartArchive(values))).to.equal(false);
  });
});
