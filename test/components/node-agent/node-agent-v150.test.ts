/** The gardener-node-agent component and its configuration in the Gardener v1.150.0 contract. */
import { expect } from 'chai';
import { encodeNodeAgentConfigurationV150, parseSemVer, stringifyYaml } from '../../../api/index.js';
import {
  logShipperTokenSyncs,
  nodeAgentComponentConfigV150,
  nodeInitComponentConfigV150,
} from '../../../components/node-agent/component-config-v150.js';
import {
  NODE_AGENT_UNIT_CONTENT_V150,
  nodeAgentV150,
} from '../../../components/node-agent/node-agent-v150.js';
import { expectGolden } from '../../golden.js';
import { contentOf } from '../support.js';

const REFERENCE_KEY = 'gardener-node-agent-worker-a-1296c0b754ed56ec';
const API = 'https://api.bar.foo.internal.example.com';

describe('node agent configuration of the v1.150.0 contract', () => {
  it("writes the bytes of upstream's own test (#Files: valitail token, no Kubernetes version)", () => {
    const config = {
      ...nodeAgentComponentConfigV150({
        oscSecretName: 'osc-secret-name',
        kubernetesVersion: undefined,
        apiServerUrl: 'https://localhost',
        logShipper: 'valitail',
      }),
    };
    expect(encodeNodeAgentConfigurationV150(config)).to.equal(`apiServer:
  caFile: /var/lib/gardener-node-agent/cluster-ca.crt
  server: https://localhost
apiVersion: nodeagent.config.gardener.cloud/v1alpha1
clientConnection:
  acceptContentTypes: ""
  burst: 0
  contentType: ""
  kubeconfig: ""
  qps: 0
controllers:
  operatingSystemConfig:
    kubernetesVersion: null
    secretName: osc-secret-name
  systemdUnitCheck: {}
  token:
    syncConfigs:
    - path: /var/lib/valitail/auth-token
      secretName: gardener-valitail
    syncPeriod: 12h0m0s
kind: NodeAgentConfiguration
logFormat: ""
logLevel: ""
server: {}
`);
  });

  it('writes what gardenlet v1.150.0 rendered for the reference pool (OpenTelemetry Collector token)', () => {
    const config = nodeAgentComponentConfigV150({
      oscSecretName: REFERENCE_KEY,
      kubernetesVersion: parseSemVer('1.34.1'),
      apiServerUrl: API,
      logShipper: 'opentelemetry-collector',
    });
    const text = encodeNodeAgentConfigurationV150(config);
    expect(text).to.contain(`  operatingSystemConfig:
    kubernetesVersion: 1.34.1
    secretName: ${REFERENCE_KEY}
  systemdUnitCheck: {}
  token:
    syncConfigs:
    - path: /var/lib/opentelemetry-collector/auth-token
      secretName: gardener-opentelemetry-collector
    syncPeriod: 12h0m0s
`);
    // none of v1.91.4's fields
    for (const gone of ['caBundle', 'syncJitterPeriod', 'credentials/token', 'bootstrap'])
      expect(text).to.not.contain(gone);
  });

  it('the provision copy adds bootstrap and syncs no token', () => {
    const config = nodeInitComponentConfigV150({
      oscSecretName: REFERENCE_KEY,
      kubernetesVersion: parseSemVer('1.34.1'),
      apiServerUrl: API,
    });
    const text = encodeNodeAgentConfigurationV150(config);
    expect(text).to.match(/^bootstrap: \{\}$/m);
    expect(text).to.not.contain('syncConfigs');
    expect(text).to.contain('  token:\n    syncPeriod: 12h0m0s\n');
    const sized = nodeInitComponentConfigV150(
      { oscSecretName: 'k', kubernetesVersion: undefined, apiServerUrl: API },
      1234,
    );
    expect(encodeNodeAgentConfigurationV150(sized)).to.contain('bootstrap:\n  kubeletDataVolumeSize: 1234\n');
  });

  it("syncs only the log shipper's token", () => {
    expect(logShipperTokenSyncs('none')).to.deep.equal([]);
    expect(logShipperTokenSyncs('valitail')).to.deep.equal([
      { secretName: 'gardener-valitail', path: '/var/lib/valitail/auth-token' },
    ]);
  });
});

describe('node agent component of the v1.150.0 contract', () => {
  const out = nodeAgentV150({
    config: nodeAgentComponentConfigV150({
      oscSecretName: REFERENCE_KEY,
      kubernetesVersion: parseSemVer('1.34.1'),
      apiServerUrl: API,
      logShipper: 'opentelemetry-collector',
    }),
    gitVersion: 'v1.150.0',
    caBundle: '-----BEGIN CERTIFICATE-----\nY2x1c3Rlci1jYQ==\n-----END CERTIFICATE-----\n',
    image: 'europe-docker.pkg.dev/gardener-project/releases/gardener/node-agent:v1.150.0',
  });

  it('ships config-v1.150.0.yaml (0600), cluster-ca.crt (0640) and the binary, all named by the unit', () => {
    expect(out.files.map((f) => [f.path, f.permissions])).to.deep.equal([
      ['/var/lib/gardener-node-agent/config-v1.150.0.yaml', 0o600],
      ['/var/lib/gardener-node-agent/cluster-ca.crt', 0o640],
      ['/opt/bin/gardener-node-agent', 0o755],
    ]);
    expect(out.units).to.have.length(1);
    expect(out.units[0]).to.deep.include({ name: 'gardener-node-agent.service', enable: true });
    expect(out.units[0]?.filePaths).to.deep.equal(out.files.map((f) => f.path));
    expect(contentOf(out.files[1]!)).to.equal(
      '-----BEGIN CERTIFICATE-----\nY2x1c3Rlci1jYQ==\n-----END CERTIFICATE-----\n',
    );
  });

  it("starts the agent with --config-dir and logs to the console too, as upstream's test expects", () => {
    expect(NODE_AGENT_UNIT_CONTENT_V150).to.contain(
      'ExecStart=/opt/bin/gardener-node-agent --config-dir=/var/lib/gardener-node-agent\n',
    );
    expect(NODE_AGENT_UNIT_CONTENT_V150).to.contain(
      'StandardOutput=journal+console\nStandardError=journal\n',
    );
    expect(NODE_AGENT_UNIT_CONTENT_V150.endsWith('WantedBy=multi-user.target')).to.equal(true);
  });

  it('matches its golden (decoded view)', () => {
    const decoded = Object.fromEntries(
      out.files.filter((f) => f.content.inline?.encoding === 'b64').map((f) => [f.path, contentOf(f)]),
    );
    expectGolden(
      'render-v1.150/components/node-agent.yaml',
      `${stringifyYaml({ units: out.units, files: out.files })}---\n${stringifyYaml({ decoded })}`,
    );
  });
});
