/**
 * The agent reads both contracts' NodeAgentConfiguration: which one a file follows comes from what
 * it holds (gardenlet v1.150.0 writes `caFile` and `systemdUnitCheck`, v1.91.4 `caBundle`), and
 * each is defaulted and validated as that contract's agent does.
 */
import { expect } from 'chai';
import { parseGoDuration } from '../../api/duration.js';
import {
  encodeNodeAgentConfiguration,
  loadNodeAgentConfigurationOfContract,
  nodeAgentConfigurationFromObject,
} from '../../api/schema/node-agent-configuration.js';
import { encodeNodeAgentConfigurationV150 } from '../../api/schema/node-agent-configuration-v150.js';
import { parseSemVer } from '../../api/semver.js';
import { parseYaml, stringifyYaml } from '../../api/yaml/codec.js';

const OTEL = {
  secretName: 'gardener-opentelemetry-collector',
  path: '/var/lib/opentelemetry-collector/auth-token',
};

/** What gardenlet v1.150.0 writes into config-v1.150.0.yaml (the reconcile copy). */
function v150Text(kubernetesVersion = '1.34.1'): string {
  return encodeNodeAgentConfigurationV150({
    apiServerUrl: 'https://api.bar.foo.internal.example.com',
    oscSecretName: 'gardener-node-agent-worker-a-1296c0b754ed56ec',
    kubernetesVersion: parseSemVer(kubernetesVersion),
    tokenSyncConfigs: [OTEL],
    tokenSyncPeriod: parseGoDuration('12h'),
  });
}

function load(text: string) {
  const loaded = loadNodeAgentConfigurationOfContract(text);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.value;
}

function errorsOf(text: string) {
  const loaded = loadNodeAgentConfigurationOfContract(text);
  return loaded.ok ? [] : loaded.errors;
}

// biome-ignore lint/suspicious/noExplicitAny: a test edits the document freely
type Doc = any;

function v150With(mutate: (o: Doc) => void): string {
  const o = parseYaml(v150Text()) as Doc;
  mutate(o);
  return stringifyYaml(o);
}

describe('NodeAgentConfiguration of either contract', () => {
  it("reads gardenlet v1.150.0's file as the v1.150.0 contract, defaulted as its agent does", () => {
    const { config, contract } = load(v150Text());
    expect(contract).to.equal('v1.150.0');
    expect(config.apiServer).to.deep.equal({
      caFile: '/var/lib/gardener-node-agent/cluster-ca.crt',
      server: 'https://api.bar.foo.internal.example.com',
    });
    expect(config.controllers.systemdUnitCheck).to.deep.equal({
      syncPeriod: parseGoDuration('1m'),
      stuckThreshold: parseGoDuration('5m'),
    });
    // no jitter in v1.150.0: the reconciliation delay replaced it
    expect(config.controllers.operatingSystemConfig.syncJitterPeriod).to.equal(undefined);
    expect(config.controllers.operatingSystemConfig.syncPeriod).to.equal(parseGoDuration('10m'));
    expect(config.controllers.token).to.deep.equal({
      syncConfigs: [OTEL],
      syncPeriod: parseGoDuration('12h'),
    });
    expect(config.logLevel).to.equal('info');
  });

  it('reads a v1.91.4 file as before: the contract of the caBundle, with its jitter default', () => {
    const text = encodeNodeAgentConfiguration({
      clientConnection: {},
      server: {},
      apiServer: { server: 'https://localhost', caBundle: Buffer.from('ca').toString('base64') },
      controllers: {
        operatingSystemConfig: { secretName: 'osc', kubernetesVersion: parseSemVer('1.29.1') },
        token: {
          syncConfigs: [
            { secretName: 'gardener-node-agent', path: '/var/lib/gardener-node-agent/credentials/token' },
          ],
        },
      },
    });
    const { config, contract } = load(text);
    expect(contract).to.equal('v1.91.4');
    expect(config.controllers.operatingSystemConfig.syncJitterPeriod).to.equal(parseGoDuration('5m'));
    expect(config.controllers.systemdUnitCheck).to.equal(undefined);
  });

  it('decides by the fields alone: systemdUnitCheck without caFile is v1.150.0', () => {
    const { contract } = load(
      v150With((o) => {
        o.apiServer = { server: 'https://x' };
      }),
    );
    expect(contract).to.equal('v1.150.0');
  });

  it('needs no token of the agent its own in v1.150.0, and v1.91.4 still does', () => {
    expect(errorsOf(v150Text())).to.deep.equal([]);
    const v91 = v150With((o) => {
      o.apiServer = { server: 'https://x', caBundle: null };
      delete o.controllers.systemdUnitCheck;
      o.controllers.operatingSystemConfig.kubernetesVersion = '1.29.1';
    });
    expect(errorsOf(v91).map((e) => e.field)).to.deep.equal(['controllers.token.syncConfigs']);
  });

  it("checks the Kubernetes version against the file's own contract", () => {
    const old = errorsOf(v150Text('1.29.1'));
    expect(old.map((e) => [e.type, e.field])).to.deep.equal([
      ['Invalid', 'controllers.operatingSystemConfig.kubernetesVersion'],
    ]);
    expect(old[0]?.detail).to.contain('1.32, 1.33, 1.34, 1.35, 1.36');
    expect(errorsOf(v150Text('1.36.0'))).to.deep.equal([]);
  });

  it('validates the systemd unit check as v1.150.0: syncPeriod ≥ 15s, stuckThreshold ≥ 30s', () => {
    const errors = errorsOf(
      v150With((o) => {
        o.controllers.systemdUnitCheck = { syncPeriod: '10s', stuckThreshold: '29s' };
      }),
    );
    expect(errors.map((e) => [e.type, e.field, e.value])).to.deep.equal([
      ['Invalid', 'controllers.systemdUnitCheck.syncPeriod', '10s'],
      ['Invalid', 'controllers.systemdUnitCheck.stuckThreshold', '29s'],
    ]);
  });

  it('decodes caFile and systemdUnitCheck without defaulting them', () => {
    const decoded = nodeAgentConfigurationFromObject(parseYaml(v150Text()));
    expect(decoded.ok && decoded.value.controllers.systemdUnitCheck).to.deep.equal({});
    expect(decoded.ok && decoded.value.apiServer.caFile).to.equal(
      '/var/lib/gardener-node-agent/cluster-ca.crt',
    );
  });
});
